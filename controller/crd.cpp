#include "controller/crd.hpp"

#include "schema/carried/carried_schema.hpp"

#include <nlohmann/json.hpp>

namespace kpt::controller {

nlohmann::json pytorchjob_crd() {
  using json = nlohmann::json;
  json version = {
      {"name", "v1"},
      {"served", true},
      {"storage", true},
      {"additionalPrinterColumns",
       json::array({{{"jsonPath", ".status.conditions[-1:].type"}, {"name", "State"}, {"type", "string"}},
                    {{"jsonPath", ".metadata.creationTimestamp"}, {"name", "Age"}, {"type", "date"}}})},
      {"subresources",
       {{"status", json::object()},
        {"scale",
         {{"specReplicasPath", ".spec.pytorchReplicaSpecs.Worker.replicas"},
          {"statusReplicasPath", ".status.replicaStatuses.Worker.active"},
          {"labelSelectorPath", ".status.replicaStatuses.Worker.selector"}}}}},
      {"schema", {{"openAPIV3Schema", json::parse(schema::carried_openapi_json())}}},
  };
  return {
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "CustomResourceDefinition"},
      {"metadata",
       {{"name", "pytorchjobs.kubeflow.org"},
        {"labels", {{"app.kubernetes.io/name", "kubectl-pytorch-controller"}}}}},
      {"spec",
       {{"group", "kubeflow.org"},
        {"names",
         {{"kind", "PyTorchJob"},
          {"listKind", "PyTorchJobList"},
          {"plural", "pytorchjobs"},
          {"singular", "pytorchjob"}}},
        {"scope", "Namespaced"},
        {"versions", json::array({version})}}},
  };
}

}  // namespace kpt::controller
