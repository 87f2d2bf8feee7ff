#include "schema/carried/carried_crds.hpp"

#include "schema/carried/carried_schema.hpp"
#include "schema/carried/carried_trainer_schema.hpp"

#include <nlohmann/json.hpp>

#include <string_view>

namespace kpt::schema {

// A using-declaration, as schema/rules/ has: in a unity batch a local
// alias would shadow theirs (clang's -Wshadow).
using nlohmann::json;

nlohmann::json pytorchjob_crd() {
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
      {"schema", {{"openAPIV3Schema", json::parse(carried_openapi_json())}}},
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
  constexpr std::string_view k_separator = "\n---";
  std::string_view rest = carried_trainer_crds_yaml();
  while (!rest.empty()) {
    const std::size_t end = rest.find(k_separator);
    const std::string_view doc = rest.substr(0, end);
    if (const std::size_t open = doc.find('{'); open != std::string_view::npos) {
      auto crd = nlohmann::json::parse(doc.substr(open));
      crd["metadata"]["labels"] = {{"app.kubernetes.io/name", "kubectl-pytorch-controller"}};
      out.push_back(std::move(crd));
    }
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + k_separator.size());
  }
  return out;
}

}  // namespace kpt::schema
