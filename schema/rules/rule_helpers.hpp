#pragma once

#include "util/diagnostic.hpp"
#include "yaml/node.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace kpt::schema::rules {

/// One entry of spec.pytorchReplicaSpecs, in source order.
struct ReplicaEntry {
  std::string type;                  ///< the key as written ("Worker", "worker", "Chief")
  yaml::Position key_pos;            ///< where the key starts
  const yaml::Node* spec = nullptr;  ///< the replica spec (may be null or not a mapping)
};

/// One container of a replica's pod template.
struct ContainerEntry {
  const yaml::Node* node = nullptr;
  std::size_t index = 0;
  std::string path;  ///< "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0]"
};

/// A Node's position, or `fallback` when it has none.
yaml::Position pos_or(const yaml::Node* node, yaml::Position fallback);
/// Position of `key` in mapping `map`, or `fallback`.
yaml::Position key_pos_or(const yaml::Node* map, std::string_view key, yaml::Position fallback);
/// The string value of a scalar string node, or empty.
std::string_view string_value(const yaml::Node* node);
/// True when `node` is absent or null.
bool is_absent(const yaml::Node* node);

std::vector<ReplicaEntry> replica_entries(const yaml::Node& root);
/// "spec.pytorchReplicaSpecs.<type>"
std::string replica_path(std::string_view type);
/// template.spec.containers of a replica spec (sequence), or nullptr.
const yaml::Node* containers_of(const yaml::Node* replica_spec);
/// The mapping entries of `list_key` ("containers" or "initContainers") of a replica's pod spec.
std::vector<ContainerEntry> container_entries(const ReplicaEntry& replica, std::string_view list_key);
/// The replica's integer `replicas`, or `fallback` when absent or not an integer.
std::int64_t replicas_or(const ReplicaEntry& replica, std::int64_t fallback);

Diagnostic make_finding(const yaml::Document& doc, yaml::Position pos, Severity severity,
                        std::string field_path, std::string rule_id, std::string message, std::string hint);

/// apimachinery's IsDNS1035Label messages for `value` (empty when valid).
std::vector<std::string> dns1035_label_errors(std::string_view value);

}  // namespace kpt::schema::rules
