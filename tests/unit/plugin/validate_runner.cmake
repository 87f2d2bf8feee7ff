list(APPEND KPT_UNIT_plugin ${CMAKE_CURRENT_LIST_DIR}/validate_runner_test.cpp)
