list(APPEND KPT_UNIT_controller
  ${CMAKE_CURRENT_LIST_DIR}/env_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/env_style_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_spec_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/labels_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/desired_state_test.cpp
)
