if(TARGET kpt_controller)
  list(APPEND KPT_UNIT_controller ${CMAKE_CURRENT_LIST_DIR}/manifests_test.cpp)
endif()
