# KPT_SANITIZE: the whole tree (libraries, tests, the binary) with AddressSanitizer and
# UndefinedBehaviorSanitizer; any report aborts the process, so a ctest run fails on it.
# KPT_FUZZ: coverage instrumentation for libFuzzer everywhere (clang only) and the fuzz_* targets
# linked with libFuzzer's driver; without it the fuzz_* targets replay their corpora as ctest entries.
option(KPT_SANITIZE "Build everything with -fsanitize=address,undefined" OFF)
option(KPT_FUZZ "Build the fuzz_* targets with libFuzzer (needs clang)" OFF)

if(KPT_FUZZ AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "KPT_FUZZ=ON needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++-14 "
                      "and run\n  apt-get install -y clang-14 libclang-rt-14-dev")
endif()

if(KPT_SANITIZE)
  set(KPT_SANITIZE_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_compile_options(${KPT_SANITIZE_FLAGS})
  add_link_options(${KPT_SANITIZE_FLAGS})
endif()
if(KPT_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
