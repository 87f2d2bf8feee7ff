# Job lifecycle as pure functions: conditions, replica statuses, restart and run policies.
list(APPEND KPT_MODEL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/lifecycle.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lifecycle_time.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lifecycle_json.cpp)
