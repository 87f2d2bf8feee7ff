list(APPEND KPT_UNIT_schema
  ${CMAKE_CURRENT_LIST_DIR}/rules_operator_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rules_lints_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rules_combine_test.cpp
)
