list(APPEND KPT_UNIT_plugin ${CMAKE_CURRENT_LIST_DIR}/diagnostic_output_test.cpp ${CMAKE_CURRENT_LIST_DIR}/diagnostic_json_test.cpp)
