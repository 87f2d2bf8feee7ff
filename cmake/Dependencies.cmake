# Every dependency is a Debian 12 package; a missing one fails with the line to run.
set(KPT_APT_LINE "apt-get install -y cmake ninja-build g++ pkg-config libyaml-dev libcurl4-openssl-dev libcli11-dev libfmt-dev libgtest-dev libgmock-dev nlohmann-json3-dev libcpp-httplib-dev libspdlog-dev libbenchmark-dev libssl-dev zlib1g-dev libsqlite3-dev protobuf-compiler libprotobuf-dev")

macro(kpt_require_package name)
  find_package(${name} ${ARGN} QUIET)
  if(NOT ${name}_FOUND)
    message(FATAL_ERROR "missing dependency '${name}': run\n  ${KPT_APT_LINE}")
  endif()
endmacro()

find_package(PkgConfig QUIET)
if(NOT PkgConfig_FOUND)
  message(FATAL_ERROR "missing pkg-config: run\n  ${KPT_APT_LINE}")
endif()

kpt_require_package(nlohmann_json)
kpt_require_package(fmt)
kpt_require_package(CLI11)
kpt_require_package(spdlog)
kpt_require_package(CURL)
kpt_require_package(OpenSSL)
kpt_require_package(ZLIB)
kpt_require_package(Threads)
kpt_require_package(SQLite3)
kpt_require_package(Protobuf)
kpt_require_package(GTest)
if(KPT_BENCHMARKS)
  kpt_require_package(benchmark)
endif()

# libyaml is the one manifest reader (see README, dependency notes); it ships only a .pc file.
pkg_check_modules(LIBYAML QUIET IMPORTED_TARGET yaml-0.1)
if(NOT LIBYAML_FOUND)
  message(FATAL_ERROR "missing libyaml: run\n  ${KPT_APT_LINE}")
endif()
# Debian ships cpp-httplib as a compiled library with only a .pc file.
pkg_check_modules(HTTPLIB QUIET IMPORTED_TARGET cpp-httplib)
if(NOT HTTPLIB_FOUND)
  message(FATAL_ERROR "missing cpp-httplib: run\n  ${KPT_APT_LINE}")
endif()

find_package(Python3 COMPONENTS Interpreter REQUIRED)
