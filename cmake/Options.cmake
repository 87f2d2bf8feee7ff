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

# kpt_library(name SOURCES ... [PUBLIC_DEPS ...] [PRIVATE_DEPS ...])
function(kpt_library name)
  cmake_parse_arguments(A "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(${name} STATIC ${A_SOURCES})
  target_link_libraries(${name} PUBLIC kpt_options ${A_PUBLIC_DEPS} PRIVATE kpt_warnings ${A_PRIVATE_DEPS})
endfunction()
