list(APPEND KPT_UNIT_plugin ${CMAKE_CURRENT_LIST_DIR}/env_live_test.cpp)
