list(APPEND KPT_UNIT_schema ${CMAKE_CURRENT_LIST_DIR}/carried_schema_test.cpp)
