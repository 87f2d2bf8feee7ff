# The reconciler's unit tests run against the in-memory FakeApiClient (tests/support).
if(TARGET kpt_controller)
  list(APPEND KPT_UNIT_controller
    ${CMAKE_CURRENT_LIST_DIR}/reconciler_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/object_cache_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/work_queue_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/leader_election_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/controller_loop_test.cpp
    ${PROJECT_SOURCE_DIR}/tests/support/fake_api_client.cpp)
endif()
