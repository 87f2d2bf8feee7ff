#include "apiserver/strategic_merge.hpp"

#include "schema/builtin/builtin_schema.hpp"

#include <algorithm>
#include <optional>
#include <string_view>

namespace kpt::apiserver {

namespace {

using json = nlohmann::json;

constexpr std::string_view k_order_prefix = "$setElementOrder/";
constexpr std::string_view k_delete_prefix = "$deleteFromPrimitiveList/";

std::map<std::string, PatchStrategies, std::less<>> load_strategies() {
  std::map<std::string, PatchStrategies, std::less<>> out;
  const auto table = json::parse(schema::builtin_patch_keys_json());
  for (const auto& [kind, lists] : table.items()) {
    auto& strategies = out[kind];
    for (const auto& [path, entry] : lists.items()) {
      const std::string strategy = entry.value("strategy", "");
      ListStrategy s;
      s.merge_key = entry.value("key", "");
      s.merge = strategy.find("merge") != std::string::npos;
      s.retain_keys = strategy.find("retainKeys") != std::string::npos;
      strategies.emplace(path, std::move(s));
    }
  }
  return out;
}

bool is_directive(const std::string& key) { return !key.empty() && key.front() == '$'; }

/// The `$patch` directive of a patch map ("replace", "delete", "merge"), or "" (a value of
/// another type included: a patch is untrusted).
std::string directive_of(const json& value) {
  if (!value.is_object()) return {};
  const auto it = value.find("$patch");
  return it != value.end() && it->is_string() ? it->get<std::string>() : std::string();
}

/// A value from a patch with its directives gone, as it is when nothing is merged into it.
json without_directives(const json& value) {
  if (value.is_object()) {
    json out = json::object();
    for (const auto& [k, v] : value.items()) {
      if (!is_directive(k)) out[k] = without_directives(v);
    }
    return out;
  }
  if (value.is_array()) {
    json out = json::array();
    for (const auto& item : value) {
      if (item.is_object() && item.contains("$patch")) continue;
      out.push_back(without_directives(item));
    }
    return out;
  }
  return value;
}

class Merger {
 public:
  explicit Merger(const PatchStrategies& strategies) : m_strategies(strategies) {}

  /// The merged map, or nullopt for `$patch: delete`.
  Expected<std::optional<json>> merge_map(const json& original, const json& patch, const std::string& path) {
    const std::string directive = directive_of(patch);
    if (directive == "delete") return std::optional<json>();
    if (directive == "replace") return std::optional<json>(without_directives(patch));
    if (const auto it = patch.find("$retainKeys"); it != patch.end() && it->is_array()) {
      // The fields a patch sets must be among those it retains, or it would drop what it sets.
      for (const auto& [key, value] : patch.items()) {
        if (is_directive(key) || std::find(it->begin(), it->end(), json(key)) != it->end()) continue;
        return make_api_error(422, "Invalid", "field " + key + " is not present in the $retainKeys list");
      }
    }
    json out = original.is_object() ? original : json::object();
    for (const auto& [key, value] : patch.items()) {
      if (is_directive(key)) continue;
      if (value.is_null()) {
        out.erase(key);
        continue;
      }
      const std::string field = path.empty() ? key : path + "." + key;
      if (value.is_object()) {
        auto merged = merge_map(out.value(key, json()), value, field);
        if (!merged) return merged.error();
        if (merged.value()) {
          out[key] = std::move(*merged.value());
        } else {
          out.erase(key);
        }
      } else if (value.is_array()) {
        auto merged = merge_list(out.value(key, json::array()), value, field);
        if (!merged) return merged.error();
        out[key] = std::move(merged.value());
      } else {
        out[key] = value;
      }
    }
    for (const auto& [key, value] : patch.items()) {
      if (key.rfind(k_delete_prefix, 0) == 0 && value.is_array()) {
        const std::string list = key.substr(k_delete_prefix.size());
        if (out.contains(list) && out[list].is_array()) {
          auto& items = out[list];
          const json& gone = value;  // clang 14 does not capture structured bindings
          items.erase(std::remove_if(items.begin(), items.end(),
                                     [&](const json& v) {
                                       return std::find(gone.begin(), gone.end(), v) != gone.end();
                                     }),
                      items.end());
        }
      }
    }
    for (const auto& [key, value] : patch.items()) {
      if (key.rfind(k_order_prefix, 0) != 0 || !value.is_array()) continue;
      const std::string list = key.substr(k_order_prefix.size());
      if (out.contains(list) && out[list].is_array()) {
        order_list(out[list], value, strategy_of(path.empty() ? list : path + "." + list));
      }
    }
    if (patch.contains("$retainKeys") && patch["$retainKeys"].is_array()) {
      const json& keep = patch["$retainKeys"];
      for (auto it = out.begin(); it != out.end();) {
        if (std::find(keep.begin(), keep.end(), json(it.key())) == keep.end()) {
          it = out.erase(it);
        } else {
          ++it;
        }
      }
    }
    return std::optional<json>(std::move(out));
  }

 private:
  [[nodiscard]] ListStrategy strategy_of(const std::string& path) const {
    const auto it = m_strategies.find(path);
    return it == m_strategies.end() ? ListStrategy{} : it->second;
  }

  Expected<json> merge_list(const json& original, const json& patch, const std::string& path) {
    const ListStrategy strategy = strategy_of(path);
    const bool replace = std::any_of(patch.begin(), patch.end(),
                                     [](const json& item) { return directive_of(item) == "replace"; });
    if (!strategy.merge || replace || !original.is_array()) return without_directives(patch);
    json out = original;
    if (strategy.merge_key.empty()) {
      for (const auto& item : patch) {
        if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
      }
      return out;
    }
    const std::string& key = strategy.merge_key;
    for (const auto& item : patch) {
      if (!item.is_object() || !item.contains(key)) {
        return make_api_error(422, "Invalid",
                              "map: " + item.dump() + " does not contain declared merge key: " + key);
      }
      const auto same = std::find_if(out.begin(), out.end(), [&](const json& o) {
        return o.is_object() && o.contains(key) && o[key] == item[key];
      });
      if (directive_of(item) == "delete") {
        if (same != out.end()) out.erase(same);
        continue;
      }
      auto merged = merge_map(same != out.end() ? *same : json::object(), item, path);
      if (!merged) return merged.error();
      if (!merged.value()) continue;
      if (same != out.end()) {
        *same = std::move(*merged.value());
      } else {
        out.push_back(std::move(*merged.value()));
      }
    }
    return out;
  }

  /// `$setElementOrder`: the listed items in that order, then the others as they were.
  static void order_list(json& items, const json& order, const ListStrategy& strategy) {
    const auto identity = [&](const json& v) -> json {
      if (strategy.merge_key.empty() || !v.is_object()) return v;
      return v.value(strategy.merge_key, json());
    };
    json ordered = json::array();
    std::vector<bool> taken(items.size(), false);
    for (const auto& wanted : order) {
      const json id = identity(wanted);
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (!taken[i] && identity(items[i]) == id) {
          ordered.push_back(items[i]);
          taken[i] = true;
          break;
        }
      }
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (!taken[i]) ordered.push_back(items[i]);
    }
    items = std::move(ordered);
  }

  const PatchStrategies& m_strategies;
};

}  // namespace

const PatchStrategies* builtin_patch_strategies(const std::string& api_version, const std::string& kind) {
  static const auto table = load_strategies();
  const auto it = table.find(api_version + "/" + kind);
  return it == table.end() ? nullptr : &it->second;
}

Expected<json> strategic_merge(const json& original, const json& patch, const PatchStrategies& strategies) {
  Merger merger(strategies);
  auto merged = merger.merge_map(original, patch, "");
  if (!merged) return merged.error();
  if (!merged.value()) return json::object();
  return std::move(*merged.value());
}

}  // namespace kpt::apiserver
