list(APPEND KPT_UNIT_cel
  ${CMAKE_CURRENT_LIST_DIR}/crd_rules_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/functions_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lexer_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/limits_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/macros_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/parser_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/regex_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/robustness_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/value_test.cpp
)
