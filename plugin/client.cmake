# kube client helpers of the plugin: the hidden config-resolve command.
target_sources(kpt_plugin PRIVATE ${CMAKE_CURRENT_LIST_DIR}/cmd_config.cpp)
