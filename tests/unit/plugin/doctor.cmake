list(APPEND KPT_UNIT_plugin ${CMAKE_CURRENT_LIST_DIR}/doctor_detect_test.cpp ${CMAKE_CURRENT_LIST_DIR}/doctor_live_test.cpp ${CMAKE_CURRENT_LIST_DIR}/doctor_output_test.cpp)
