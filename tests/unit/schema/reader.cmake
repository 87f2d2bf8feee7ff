list(APPEND KPT_UNIT_schema
  ${CMAKE_CURRENT_LIST_DIR}/reader_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reader_scalar_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reader_findings_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reader_hostile_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/input_files_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/simple_yaml_test.cpp
)
