# `run`, `logs`, `status`: the job view, the follower and their output helpers.
target_sources(kpt_plugin PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/job_view.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_follower.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_builder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/yaml_output.cpp
  ${CMAKE_CURRENT_LIST_DIR}/interrupt.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cluster_client.cpp
  ${CMAKE_CURRENT_LIST_DIR}/local_session.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_target.cpp
)
