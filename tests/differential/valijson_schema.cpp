#include "tests/differential/valijson_schema.hpp"

#include <limits>

namespace kpt::differential {
namespace {

using json = nlohmann::json;

bool is_extension(const std::string& key) { return key.rfind("x-kubernetes-", 0) == 0; }

}  // namespace

json to_draft4(const json& s) {
  if (!s.is_object()) return s;
  json out = json::object();
  for (auto it = s.begin(); it != s.end(); ++it) {
    const std::string& key = it.key();
    if (key == "nullable" || key == "format" || is_extension(key)) continue;
    if (key == "properties") {
      json props = json::object();
      for (auto p = it->begin(); p != it->end(); ++p) props[p.key()] = to_draft4(p.value());
      out["properties"] = props;
    } else if (key == "items" || (key == "additionalProperties" && it->is_object())) {
      out[key] = to_draft4(it.value());
    } else if (key == "type" && *it == "integer") {
      // An integral float is an integer to Kubernetes; draft 4 says "multipleOf 1" for it.
      out["type"] = "number";
      out["multipleOf"] = 1.0;  // a double: valijson applies an integer multipleOf to integers only
    } else {
      out[key] = it.value();
    }
  }
  if (s.value("format", "") == "int32") {
    const auto lo = static_cast<double>(std::numeric_limits<std::int32_t>::min());
    const auto hi = static_cast<double>(std::numeric_limits<std::int32_t>::max());
    out["minimum"] = s.contains("minimum") ? std::max(lo, s["minimum"].get<double>()) : lo;
    out["maximum"] = s.contains("maximum") ? std::min(hi, s["maximum"].get<double>()) : hi;
    if (!s.contains("minimum")) out.erase("exclusiveMinimum");
    if (!s.contains("maximum")) out.erase("exclusiveMaximum");
  }
  if (s.value("x-kubernetes-list-type", "") == "set") out["uniqueItems"] = true;
  const bool preserve = s.value("x-kubernetes-preserve-unknown-fields", false);
  if (s.contains("properties") && !s.contains("additionalProperties") && !preserve)
    out["additionalProperties"] = false;
  if (s.value("type", "") == "object" && !s.contains("properties") && !s.contains("additionalProperties") &&
      !preserve)
    out["additionalProperties"] = false;
  if (s.value("x-kubernetes-int-or-string", false)) {
    json typed = out;
    out = {{"anyOf", json::array({json{{"type", "number"}, {"multipleOf", 1.0}}, json{{"type", "string"}}})}};
    if (!typed.empty()) out = {{"allOf", json::array({out, typed})}};
  }
  if (s.value("nullable", false)) out = {{"anyOf", json::array({json{{"type", "null"}}, out})}};
  return out;
}

}  // namespace kpt::differential
