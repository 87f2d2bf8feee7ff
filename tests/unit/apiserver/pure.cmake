list(APPEND KPT_UNIT_apiserver
  ${CMAKE_CURRENT_LIST_DIR}/selectors_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/table_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/patch_and_logs_test.cpp
)
