# Every dependency is a Debian 12 package; a missing one fails with the line to run. The product's
# are in `scripts/dev.sh packages build`, the tests' in `scripts/dev.sh packages test`.

# kpt_require_package(CMAKE_NAME DEBIAN_PACKAGE [find_package args...])
macro(kpt_require_package name deb)
  find_package(${name} ${ARGN} QUIET)
  if(NOT ${name}_FOUND)
    message(FATAL_ERROR "missing dependency '${name}': run\n  apt-get install -y ${deb}\n"
                        "(scripts/dev.sh installs every package the build needs)")
  endif()
endmacro()

# kpt_require_pkg_config(PREFIX MODULE DEBIAN_PACKAGE): for libraries Debian ships with only a .pc file.
macro(kpt_require_pkg_config prefix module deb)
  pkg_check_modules(${prefix} QUIET IMPORTED_TARGET ${module})
  if(NOT ${prefix}_FOUND)
    message(FATAL_ERROR "missing dependency '${module}': run\n  apt-get install -y ${deb}\n"
                        "(scripts/dev.sh installs every package the build needs)")
  endif()
endmacro()

find_package(PkgConfig QUIET)
if(NOT PkgConfig_FOUND)
  message(FATAL_ERROR "missing pkg-config: run\n  apt-get install -y pkg-config")
endif()

kpt_require_package(nlohmann_json nlohmann-json3-dev)
kpt_require_package(fmt libfmt-dev)
kpt_require_package(CLI11 libcli11-dev)
kpt_require_package(CURL libcurl4-openssl-dev)
kpt_require_package(OpenSSL libssl-dev)
kpt_require_package(ZLIB zlib1g-dev)
kpt_require_package(Threads libc6-dev)
kpt_require_package(SQLite3 libsqlite3-dev)
kpt_require_package(Protobuf "protobuf-compiler libprotobuf-dev")
# libyaml is the one manifest reader (see README, dependency notes).
kpt_require_pkg_config(LIBYAML yaml-0.1 libyaml-dev)
kpt_require_pkg_config(HTTPLIB cpp-httplib libcpp-httplib-dev)
# RE2 for `run --progress REGEX`: a user's pattern runs in time linear in the line.
kpt_require_pkg_config(RE2 re2 libre2-dev)
find_package(Python3 COMPONENTS Interpreter QUIET)
if(NOT Python3_FOUND)
  message(FATAL_ERROR "missing python3 (it generates the carried schemas): run\n  apt-get install -y python3")
endif()

if(KPT_TESTS)
  kpt_require_package(GTest "libgtest-dev libgmock-dev")
  if(KPT_BENCHMARKS)
    kpt_require_package(benchmark libbenchmark-dev)
  endif()
endif()
