list(APPEND KPT_UNIT_controller ${CMAKE_CURRENT_LIST_DIR}/gang_test.cpp)
