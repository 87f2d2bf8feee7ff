# doctor: detection (pure), gathering through the ApiClient, output; the cluster defaults, live
# schemas and server dry runs validate and env use.
target_sources(kpt_plugin PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/doctor_detect.cpp
  ${CMAKE_CURRENT_LIST_DIR}/doctor_gather.cpp
  ${CMAKE_CURRENT_LIST_DIR}/doctor_output.cpp
  ${CMAKE_CURRENT_LIST_DIR}/doctor_defaults.cpp
  ${CMAKE_CURRENT_LIST_DIR}/live_schema.cpp
  ${CMAKE_CURRENT_LIST_DIR}/server_dry_run.cpp
  ${CMAKE_CURRENT_LIST_DIR}/live_validate.cpp
)
