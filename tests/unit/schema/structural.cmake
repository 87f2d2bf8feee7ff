list(APPEND KPT_UNIT_schema
  ${CMAKE_CURRENT_LIST_DIR}/quantity_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/k8s_names_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/schema_compile_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/structural_validator_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/structural_metadata_test.cpp
)
