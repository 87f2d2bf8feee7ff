list(APPEND KPT_UNIT_schema
  ${CMAKE_CURRENT_LIST_DIR}/release_fields_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/crd_fingerprint_test.cpp)
