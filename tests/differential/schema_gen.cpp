#include "tests/differential/schema_gen.hpp"

#include <array>
#include <set>
#include <vector>

namespace kpt::differential {
namespace {

using json = nlohmann::json;

bool chance(std::mt19937_64& rng, int percent) { return static_cast<int>(rng() % 100) < percent; }

template <class T, std::size_t N>
const T& one_of(const std::array<T, N>& a, std::mt19937_64& rng) {
  return a[rng() % N];
}

struct PatternCase {
  const char* pattern;
  std::array<const char*, 4> matching;
};

const std::array<PatternCase, 5>& patterns() {
  static const std::array<PatternCase, 5> p = {{
      {"^[a-z]+$", {"a", "abc", "zz", "job"}},
      {"^[0-9]{1,3}$", {"1", "42", "999", "007"}},
      {"a|b", {"a", "xbx", "ab", "cab"}},
      {"^x", {"x", "xy", "x-1", "xx"}},
      {"[A-Z]", {"A", "aBc", "Z9", "Q"}},
  }};
  return p;
}

constexpr std::array<const char*, 12> k_quantities = {"1", "500m", "2Gi", "16Gi", "1.5",  "1e3",
                                                      "0", "+1Ki", "-2",  ".5",   "100M", "1E2"};

json string_schema(std::mt19937_64& rng) {
  json s = {{"type", "string"}};
  if (chance(rng, 10)) {
    s["pattern"] = quantity_pattern();
    return s;
  }
  if (chance(rng, 20)) s["pattern"] = one_of(patterns(), rng).pattern;
  if (chance(rng, 25)) s["minLength"] = rng() % 3;
  if (chance(rng, 25)) s["maxLength"] = 2 + rng() % 4;
  if (!s.contains("pattern") && chance(rng, 15)) s["enum"] = {"a", "bb", "ccc"};
  return s;
}

json number_schema(std::mt19937_64& rng, bool integer) {
  json s = {{"type", integer ? "integer" : "number"}};
  if (integer && chance(rng, 15)) s["format"] = "int32";
  if (chance(rng, 30)) {
    s["minimum"] = static_cast<int>(rng() % 5) - 2;
    if (chance(rng, 30)) s["exclusiveMinimum"] = true;
  }
  if (chance(rng, 30)) {
    s["maximum"] = 3 + static_cast<int>(rng() % 5);
    if (chance(rng, 30)) s["exclusiveMaximum"] = true;
  }
  if (integer && chance(rng, 10)) s["enum"] = {1, 2, 3};
  return s;
}

json object_schema(std::mt19937_64& rng, int depth);

json array_schema(std::mt19937_64& rng, int depth) {
  json s = {{"type", "array"}};
  const int pick = static_cast<int>(rng() % 10);
  if (pick < 2) {
    s["items"] = {{"type", "string"}};
    s["x-kubernetes-list-type"] = "set";
  } else if (pick < 4) {
    s["items"] = {{"type", "object"},
                  {"required", {"name"}},
                  {"properties", {{"name", {{"type", "string"}}}, {"v", {{"type", "integer"}}}}}};
    s["x-kubernetes-list-type"] = "map";
    s["x-kubernetes-list-map-keys"] = {"name"};
  } else {
    s["items"] = random_schema(rng, depth - 1);
  }
  if (chance(rng, 20)) s["minItems"] = rng() % 2;
  if (chance(rng, 20)) s["maxItems"] = 1 + rng() % 3;
  return s;
}

json object_schema(std::mt19937_64& rng, int depth) {
  static constexpr std::array<const char*, 7> k_names = {"a", "b", "c", "name", "port", "items", "x-y"};
  json s = {{"type", "object"}};
  if (chance(rng, 12)) {
    s["additionalProperties"] = random_schema(rng, depth - 1);
  } else {
    json props = json::object();
    const int n = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < n; ++i) props[one_of(k_names, rng)] = random_schema(rng, depth - 1);
    s["properties"] = props;
    json required = json::array();
    for (auto it = props.begin(); it != props.end(); ++it)
      if (chance(rng, 30)) required.push_back(it.key());
    if (!required.empty()) s["required"] = required;
    if (chance(rng, 8)) s["x-kubernetes-preserve-unknown-fields"] = true;
    if (chance(rng, 5)) {
      s["x-kubernetes-embedded-resource"] = true;
      s["x-kubernetes-preserve-unknown-fields"] = true;
    }
  }
  if (chance(rng, 10)) s["minProperties"] = rng() % 2;
  if (chance(rng, 10)) s["maxProperties"] = 1 + rng() % 3;
  return s;
}

void gather_paths(json& value, std::vector<json*>& out) {
  out.push_back(&value);
  if (value.is_structured())
    for (auto& child : value) gather_paths(child, out);
}

json random_scalar(std::mt19937_64& rng) {
  switch (rng() % 7) {
    case 0:
      return "s";
    case 1:
      return static_cast<int>(rng() % 10) - 3;
    case 2:
      return 2.5;
    case 3:
      return chance(rng, 50);
    case 4:
      return nullptr;
    case 5:
      return json::array({1});
    default:
      return json::object({{"k", "v"}});
  }
}

}  // namespace

const std::string& quantity_pattern() {
  static const std::string p =
      R"(^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$)";
  return p;
}

json random_schema(std::mt19937_64& rng, int depth) {
  json s;
  const int pick = static_cast<int>(rng() % 100);
  if (depth > 0 && pick < 30) {
    s = object_schema(rng, depth);
  } else if (depth > 0 && pick < 45) {
    s = array_schema(rng, depth);
  } else if (pick < 65) {
    s = string_schema(rng);
  } else if (pick < 80) {
    s = number_schema(rng, true);
  } else if (pick < 88) {
    s = number_schema(rng, false);
  } else if (pick < 95) {
    s = {{"type", "boolean"}};
  } else {
    s = {{"x-kubernetes-int-or-string", true}};
  }
  if (chance(rng, 10)) s["nullable"] = true;
  return s;
}

json valid_value(const json& schema, std::mt19937_64& rng) {
  if (schema.value("x-kubernetes-int-or-string", false)) return chance(rng, 50) ? json(8080) : json("http");
  if (schema.contains("enum")) return schema["enum"][rng() % schema["enum"].size()];
  const std::string type = schema.value("type", "");
  if (type == "string") {
    const std::string pattern = schema.value("pattern", "");
    if (pattern == quantity_pattern()) return one_of(k_quantities, rng);
    for (const auto& p : patterns())
      if (pattern == p.pattern) return one_of(p.matching, rng);
    const std::size_t lo = schema.value("minLength", 0u);
    const std::size_t hi = schema.value("maxLength", lo + 3);
    return std::string(lo + rng() % (hi - lo + 1), 'q');
  }
  if (type == "integer" || type == "number") {
    const int lo = schema.value("minimum", -2) + (schema.value("exclusiveMinimum", false) ? 1 : 0);
    const int hi = schema.value("maximum", 9) - (schema.value("exclusiveMaximum", false) ? 1 : 0);
    const int v = lo + static_cast<int>(rng() % static_cast<unsigned>(std::max(1, hi - lo + 1)));
    return type == "number" && chance(rng, 30) ? json(v + 0.5 <= hi ? v + 0.5 : v) : json(v);
  }
  if (type == "boolean") return chance(rng, 50);
  if (type == "array") {
    const std::size_t lo = schema.value("minItems", 0u);
    const std::size_t hi = schema.value("maxItems", lo + 2);
    const std::size_t n = lo + rng() % (hi - lo + 1);
    json out = json::array();
    for (std::size_t i = 0; i < n; ++i) {
      json item = valid_value(schema["items"], rng);
      const std::string list_type = schema.value("x-kubernetes-list-type", "");
      if (list_type == "set") item = "v" + std::to_string(i);
      if (list_type == "map") item["name"] = "k" + std::to_string(i);
      out.push_back(item);
    }
    return out;
  }
  if (type == "object") {
    json out = json::object();
    if (schema.contains("additionalProperties")) {
      const std::size_t n = schema.value("minProperties", 0u) + rng() % 2;
      for (std::size_t i = 0; i < n && i < schema.value("maxProperties", 9u); ++i)
        out["k" + std::to_string(i)] = valid_value(schema["additionalProperties"], rng);
      return out;
    }
    const json required = schema.value("required", json::array());
    for (auto it = schema["properties"].begin(); it != schema["properties"].end(); ++it) {
      const bool must = std::find(required.begin(), required.end(), it.key()) != required.end();
      if (must || chance(rng, 60)) out[it.key()] = valid_value(it.value(), rng);
    }
    if (schema.value("x-kubernetes-embedded-resource", false)) {
      out["apiVersion"] = "v1";
      out["kind"] = "Thing";
      out["metadata"] = {{"name", "t"}};
    }
    // min/maxProperties are not aimed at: the validators decide.
    return out;
  }
  return nullptr;
}

json mutated_value(const json& value, std::mt19937_64& rng) {
  json out = value;
  std::vector<json*> nodes;
  gather_paths(out, nodes);
  json& target = *nodes[rng() % nodes.size()];
  switch (rng() % 8) {
    case 0:
      target = random_scalar(rng);
      break;
    case 1:
      if (target.is_object() && !target.empty()) target.erase(target.begin());
      break;
    case 2:
      if (target.is_object()) target["zz"] = random_scalar(rng);
      break;
    case 3:
      target = nullptr;
      break;
    case 4:
      if (target.is_number()) target = target.get<double>() + (chance(rng, 50) ? 1 : -1);
      if (target.is_number_float() && chance(rng, 50)) target = static_cast<int>(target.get<double>());
      break;
    case 5:
      if (target.is_string()) target = target.get<std::string>() + (chance(rng, 50) ? "X" : "");
      if (target.is_string() && chance(rng, 50) && !target.get<std::string>().empty())
        target = target.get<std::string>().substr(1);
      break;
    case 6:
      if (target.is_array() && !target.empty()) target.push_back(target.front());
      break;
    default:
      if (target.is_string()) target = one_of(k_quantities, rng) + std::string(chance(rng, 50) ? "B" : "");
      break;
  }
  return out;
}

}  // namespace kpt::differential
