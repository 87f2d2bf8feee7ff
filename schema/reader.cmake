list(APPEND KPT_SCHEMA_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/manifest_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/simple_yaml.cpp
  ${CMAKE_CURRENT_LIST_DIR}/yaml_scalar.cpp
  ${CMAKE_CURRENT_LIST_DIR}/yaml_tree_builder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/text_checks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/alias_budget.cpp
  ${CMAKE_CURRENT_LIST_DIR}/input_files.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_file_reader.cpp
)
