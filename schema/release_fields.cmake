# Per-release field availability and the CRD fingerprint (issue 2, B2).
list(APPEND KPT_SCHEMA_SOURCES ${CMAKE_CURRENT_LIST_DIR}/release_fields.cpp)
list(APPEND KPT_SCHEMA_PRIVATE_DEPS kpt_controller_model)
list(APPEND KPT_SCHEMA_SOURCES ${CMAKE_CURRENT_LIST_DIR}/crd_fingerprint.cpp)
