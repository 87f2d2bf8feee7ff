list(APPEND KPT_UNIT_plugin
  ${CMAKE_CURRENT_LIST_DIR}/job_view_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/yaml_output_test.cpp
)
