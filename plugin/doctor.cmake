# doctor: detection (pure), gathering through the ApiClient, output; live schemas for validate.
target_sources(kpt_plugin PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/doctor_detect.cpp
  ${CMAKE_CURRENT_LIST_DIR}/doctor_gather.cpp
  ${CMAKE_CURRENT_LIST_DIR}/doctor_output.cpp
)
