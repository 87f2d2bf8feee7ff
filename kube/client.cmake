# kube/: the client (kubeconfig, credentials, transport, REST).
list(APPEND KPT_KUBE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/resources.cpp
  ${CMAKE_CURRENT_LIST_DIR}/base64.cpp
  ${CMAKE_CURRENT_LIST_DIR}/yaml_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/file_system.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kubeconfig.cpp
  ${CMAKE_CURRENT_LIST_DIR}/resolved_config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/process_runner.cpp
  ${CMAKE_CURRENT_LIST_DIR}/exec_credential.cpp
  ${CMAKE_CURRENT_LIST_DIR}/curl_transport.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rest_client.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rest_support.cpp
)
