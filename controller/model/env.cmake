list(APPEND KPT_MODEL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/env_style.cpp
  ${CMAKE_CURRENT_LIST_DIR}/names.cpp
  ${CMAKE_CURRENT_LIST_DIR}/labels.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_spec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/env.cpp
  ${CMAKE_CURRENT_LIST_DIR}/env_explain.cpp
  ${CMAKE_CURRENT_LIST_DIR}/desired_state.cpp
)
