target_sources(kpt_plugin PRIVATE ${CMAKE_CURRENT_LIST_DIR}/controller_client.cpp)
