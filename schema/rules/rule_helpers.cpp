#include "schema/rules/rule_helpers.hpp"

#include <utility>

namespace kpt::schema::rules {

yaml::Position pos_or(const yaml::Node* node, yaml::Position fallback) {
  if (node == nullptr || node->pos.line == 0) return fallback;
  return node->pos;
}

yaml::Position key_pos_or(const yaml::Node* map, std::string_view key, yaml::Position fallback) {
  if (map == nullptr) return fallback;
  const auto i = map->key_index(key);
  if (i < 0 || static_cast<std::size_t>(i) >= map->key_positions.size()) return fallback;
  const auto p = map->key_positions[static_cast<std::size_t>(i)];
  return p.line == 0 ? fallback : p;
}

std::string_view string_value(const yaml::Node* node) {
  if (node == nullptr || !node->is_string()) return {};
  return node->text;
}

bool is_absent(const yaml::Node* node) { return node == nullptr || node->kind == yaml::NodeKind::null; }

std::vector<ReplicaEntry> replica_entries(const yaml::Node& root) {
  std::vector<ReplicaEntry> out;
  const yaml::Node* specs = root.at_path({"spec", "pytorchReplicaSpecs"});
  if (specs == nullptr || !specs->is_map()) return out;
  out.reserve(specs->keys.size());
  for (std::size_t i = 0; i < specs->keys.size(); ++i) {
    ReplicaEntry e;
    e.type = specs->keys[i];
    e.key_pos = i < specs->key_positions.size() ? specs->key_positions[i] : specs->pos;
    e.spec = &specs->items[i];
    out.push_back(std::move(e));
  }
  return out;
}

std::string replica_path(std::string_view type) {
  std::string out = "spec.pytorchReplicaSpecs.";
  out += type;
  return out;
}

const yaml::Node* containers_of(const yaml::Node* replica_spec) {
  if (replica_spec == nullptr || !replica_spec->is_map()) return nullptr;
  return replica_spec->at_path({"template", "spec", "containers"});
}

std::vector<ContainerEntry> container_entries(const ReplicaEntry& replica, std::string_view list_key) {
  std::vector<ContainerEntry> out;
  if (replica.spec == nullptr || !replica.spec->is_map()) return out;
  const yaml::Node* list = replica.spec->at_path({"template", "spec", list_key});
  if (list == nullptr || !list->is_seq()) return out;
  for (std::size_t i = 0; i < list->items.size(); ++i) {
    if (!list->items[i].is_map()) continue;
    out.push_back({&list->items[i], i,
                   replica_path(replica.type) + ".template.spec." + std::string(list_key) + "[" +
                       std::to_string(i) + "]"});
  }
  return out;
}

std::int64_t replicas_or(const ReplicaEntry& replica, std::int64_t fallback) {
  if (replica.spec == nullptr || !replica.spec->is_map()) return fallback;
  const yaml::Node* r = replica.spec->find("replicas");
  if (r == nullptr || r->kind != yaml::NodeKind::integer || r->int_overflow) return fallback;
  return r->integer;
}

Diagnostic make_finding(const yaml::Document& doc, yaml::Position pos, Severity severity,
                        std::string field_path, std::string rule_id, std::string message, std::string hint) {
  Diagnostic d;
  d.severity = severity;
  d.location = Location{doc.file, pos.line, pos.col};
  d.field_path = std::move(field_path);
  d.rule_id = std::move(rule_id);
  d.message = std::move(message);
  d.hint = std::move(hint);
  return d;
}

std::vector<std::string> dns1035_label_errors(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.emplace_back("must be no more than 63 characters");
  bool ok = !value.empty() && value.front() >= 'a' && value.front() <= 'z';
  for (char c : value) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) ok = false;
  }
  if (!value.empty() && value.back() == '-') ok = false;
  if (!ok) {
    errs.emplace_back(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
        "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
        "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')");
  }
  return errs;
}

}  // namespace kpt::schema::rules
