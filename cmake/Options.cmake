add_library(kpt_warnings INTERFACE)
target_compile_options(kpt_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align -Wunused
  -Woverloaded-virtual -Wnull-dereference -Wformat=2 -Wimplicit-fallthrough)
if(KPT_WERROR)
  target_compile_options(kpt_warnings INTERFACE -Werror)
endif()

add_library(kpt_options INTERFACE)
target_include_directories(kpt_options INTERFACE ${PROJECT_SOURCE_DIR})
target_compile_features(kpt_options INTERFACE cxx_std_20)

# One precompiled header for every library and test: what most files parse (nlohmann/json.hpp alone
# is 24k lines and was in half the translation units) is parsed once per build, not per file. It is
# built by kpt_pch with the same flags as every target that reuses it, which GCC and clang require.
option(KPT_PCH "Build with one precompiled header shared by every target" ON)
if(KPT_PCH)
  file(WRITE ${PROJECT_BINARY_DIR}/kpt_pch.cpp "// the precompiled header's own translation unit\n")
  add_library(kpt_pch STATIC ${PROJECT_BINARY_DIR}/kpt_pch.cpp)
  target_link_libraries(kpt_pch PRIVATE kpt_options kpt_warnings nlohmann_json::nlohmann_json)
  target_precompile_headers(kpt_pch PRIVATE
    <nlohmann/json.hpp> <algorithm> <chrono> <functional> <map> <memory> <optional> <set> <sstream>
    <string> <string_view> <unordered_map> <utility> <variant> <vector>)
endif()

# kpt_use_pch(target): the target compiles with the shared precompiled header (when KPT_PCH).
function(kpt_use_pch target)
  if(KPT_PCH)
    target_precompile_headers(${target} REUSE_FROM kpt_pch)
    target_link_libraries(${target} PRIVATE nlohmann_json::nlohmann_json)
  endif()
endfunction()

# Unity builds: each library compiles its sources in batches, so the templates they share (json,
# the standard containers) are instantiated and optimised once per batch instead of once per file.
# Helpers in anonymous namespaces must then have names unique within their library.
option(KPT_UNITY "Compile each library's sources in unity batches" ON)
set(KPT_UNITY_BATCH 16 CACHE STRING "Sources per unity batch")

# kpt_unity(target): the target compiles in unity batches (when KPT_UNITY).
function(kpt_unity target)
  if(KPT_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${KPT_UNITY_BATCH})
  endif()
endfunction()

# kpt_library(name SOURCES ... [PUBLIC_DEPS ...] [PRIVATE_DEPS ...] [OWN_PCH header...]): OWN_PCH
# gives the library a precompiled header of its own instead of the shared one.
function(kpt_library name)
  cmake_parse_arguments(A "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS;OWN_PCH" ${ARGN})
  add_library(${name} STATIC ${A_SOURCES})
  target_link_libraries(${name} PUBLIC kpt_options ${A_PUBLIC_DEPS} PRIVATE kpt_warnings ${A_PRIVATE_DEPS})
  if(A_OWN_PCH AND KPT_PCH)
    target_precompile_headers(${name} PRIVATE ${A_OWN_PCH})
  elseif(NOT A_OWN_PCH)
    kpt_use_pch(${name})
  endif()
  kpt_unity(${name})
endfunction()
