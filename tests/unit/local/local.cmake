list(APPEND KPT_UNIT_local
  ${CMAKE_CURRENT_LIST_DIR}/pod_spec_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pod_run_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/files_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/process_runner_test.cpp
)
