list(APPEND KPT_UNIT_util
  ${CMAKE_CURRENT_LIST_DIR}/strings_test.cpp
)
