#include "controller/crd.hpp"

#include "schema/carried/carried_schema.hpp"
#include "schema/carried/carried_trainer_schema.hpp"

#include <nlohmann/json.hpp>

#include <string_view>

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

std::vector<nlohmann::json> trainer_crds() {
  // The carried text is JSON documents after `---` lines (generated, so well-formed).
  std::vector<nlohmann::json> out;
  const std::string_view text = schema::carried_trainer_crds_yaml();
  for (std::size_t at = 0; at < text.size();) {
    const auto end = text.find("\n---", at);
    const auto doc = text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    const auto open = doc.find('{');
    if (open != std::string_view::npos) {
      auto crd = nlohmann::json::parse(doc.substr(open));
      crd["metadata"]["labels"] = {{"app.kubernetes.io/name", "kubectl-pytorch-controller"}};
      out.push_back(std::move(crd));
    }
    if (end == std::string_view::npos) break;
    at = end + 4;
  }
  return out;
}

}  // namespace kpt::controller
