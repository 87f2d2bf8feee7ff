# Compiled structural schemas, their binary form and cache, and structural validation (issue 2, B1).
list(APPEND KPT_SCHEMA_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/schema_set.cpp
  ${CMAKE_CURRENT_LIST_DIR}/schema_pattern.cpp
  ${CMAKE_CURRENT_LIST_DIR}/schema_compile.cpp
  ${CMAKE_CURRENT_LIST_DIR}/quantity.cpp
  ${CMAKE_CURRENT_LIST_DIR}/k8s_names.cpp
)
list(APPEND KPT_SCHEMA_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/structural_validator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/structural_metadata.cpp
  ${CMAKE_CURRENT_LIST_DIR}/schema_binary.cpp
)
list(APPEND KPT_SCHEMA_SOURCES ${CMAKE_CURRENT_LIST_DIR}/schema_cache.cpp)

# Host tool: compiles a schema into a .cpp that embeds its binary form (used by the carried schema).
# Defined after kpt_schema exists (cmake_language DEFER runs at the end of this directory).
cmake_language(DEFER CALL include ${CMAKE_CURRENT_LIST_DIR}/tools/compile_schema.cmake)
