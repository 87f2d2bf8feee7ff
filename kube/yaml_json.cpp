#include "kube/yaml_json.hpp"

#include "yaml/manifest_reader.hpp"
#include "yaml/node_json.hpp"

#include <nlohmann/json.hpp>

#include <memory>

namespace kpt::kube {

// One YAML reader for everything we parse: the manifest reader already resolves scalars as
// go-yaml v2 does (kubectl's YAML-to-JSON step) and bounds depth, aliases and size, which
// matters because a kubeconfig can come from anywhere.
Expected<nlohmann::json> yaml_to_json(const std::string& name, const std::string& text) {
  auto read = yaml::read_manifests(name, std::make_shared<const std::string>(text));
  for (const auto& finding : read.findings) {
    if (finding.severity != Severity::error) continue;
    return make_error(ErrorCode::parse, "'" + name + "' line " + std::to_string(finding.location.line) +
                                            ", column " + std::to_string(finding.location.col) + ": " +
                                            finding.message);
  }
  if (read.documents.empty()) return nlohmann::json(nullptr);
  return yaml::to_json(read.documents.front().root);
}

}  // namespace kpt::kube
