list(APPEND KPT_UNIT_kube
  ${CMAKE_CURRENT_LIST_DIR}/kubeconfig_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/resolved_config_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/exec_credential_test.cpp
)
