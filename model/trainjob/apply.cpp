#include "model/trainjob/apply.hpp"

#include "util/json_access.hpp"

#include <nlohmann/json.hpp>

namespace kpt::model::trainjob::detail {

using nlohmann::json;
using util::child;
using util::string_at;

void upsert(json& list, const json& item, const std::function<bool(const json&, const json&)>& same) {
  if (!list.is_array()) list = json::array();
  for (auto& existing : list) {
    if (same(existing, item)) {
      existing = item;
      return;
    }
  }
  list.push_back(item);
}

namespace {
/// Go's ptr.Equal on an optional field: both unset, or both set and equal.
bool same_field(const json& a, const json& b, std::string_view key) {
  const json* x = child(a, key);
  const json* y = child(b, key);
  return (x == nullptr && y == nullptr) || (x != nullptr && y != nullptr && *x == *y);
}
}  // namespace

void upsert_by_name(json& list, const json& item) {
  upsert(list, item, [](const json& a, const json& b) { return same_field(a, b, "name"); });
}

void upsert_port(json& ports, const json& port) {
  upsert(ports, port, [](const json& a, const json& b) {
    const json* a_port = child(a, "containerPort");
    const json* b_port = child(b, "containerPort");
    return (a_port != nullptr && b_port != nullptr && *a_port == *b_port) || same_field(a, b, "name");
  });
}

json apply_env_var(const json& env) {
  json out = {{"name", string_at(env, "name")}};
  if (const json* from = child(env, "valueFrom"); from != nullptr && !from->is_null()) {
    out["valueFrom"] = *from;
  } else {
    out["value"] = string_at(env, "value");
  }
  return out;
}

}  // namespace kpt::model::trainjob::detail
