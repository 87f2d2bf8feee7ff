target_sources(kpt_plugin PRIVATE ${CMAKE_CURRENT_LIST_DIR}/env_output.cpp)
target_sources(kpt_plugin PRIVATE ${CMAKE_CURRENT_LIST_DIR}/env_live.cpp)
