# The reconciler: work queue, informers, expectations, leader election, metrics and health.
# Links the pure model and the client; the model itself stays free of I/O (a link-time fact).
if(TARGET kpt_kube)
  kpt_library(kpt_controller
    SOURCES
      ${CMAKE_CURRENT_LIST_DIR}/reconciler.cpp
      ${CMAKE_CURRENT_LIST_DIR}/metrics.cpp
      ${CMAKE_CURRENT_LIST_DIR}/instrumented_client.cpp
      ${CMAKE_CURRENT_LIST_DIR}/work_queue.cpp
      ${CMAKE_CURRENT_LIST_DIR}/expectations.cpp
      ${CMAKE_CURRENT_LIST_DIR}/object_cache.cpp
      ${CMAKE_CURRENT_LIST_DIR}/informer.cpp
      ${CMAKE_CURRENT_LIST_DIR}/logger.cpp
      ${CMAKE_CURRENT_LIST_DIR}/leader_election.cpp
      ${CMAKE_CURRENT_LIST_DIR}/controller_main.cpp
      ${CMAKE_CURRENT_LIST_DIR}/manifests.cpp
    PUBLIC_DEPS kpt_controller_model kpt_kube Threads::Threads
    PRIVATE_DEPS PkgConfig::HTTPLIB
  )
endif()
