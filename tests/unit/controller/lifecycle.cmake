list(APPEND KPT_UNIT_controller
  ${CMAKE_CURRENT_LIST_DIR}/lifecycle_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lifecycle_time_test.cpp)
