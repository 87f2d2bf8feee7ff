#include "apiserver/strategic_merge.hpp"

#include "schema/builtin/builtin_schema.hpp"

#include <algorithm>
#include <optional>
#include <string_view>
#include <vector>

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

/// The `$retainKeys` check of a patch map: the fields it sets must be among those it retains, or
/// it would drop what it sets.
std::optional<Error> retain_keys_error(const json& patch) {
  const auto it = patch.find("$retainKeys");
  if (it == patch.end() || !it->is_array()) return std::nullopt;
  for (const auto& [key, value] : patch.items()) {
    if (is_directive(key) || std::find(it->begin(), it->end(), json(key)) != it->end()) continue;
    return make_api_error(422, "Invalid", "field " + key + " is not present in the $retainKeys list");
  }
  return std::nullopt;
}

/// The merge, iterative over nested maps: a patch may nest maps as deep as the server accepts
/// JSON (k_max_json_depth), and a recursive merge overflowed the stack at 7,000 levels. Lists
/// still recurse into their items, but only where a strategy names the list, and the strategies
/// name paths a few levels deep.
class Merger {
 public:
  explicit Merger(const PatchStrategies& strategies) : m_strategies(strategies) {
    for (const auto& [path, strategy] : strategies) m_longest = std::max(m_longest, path.size());
  }

  /// The merged map, or nullopt for `$patch: delete`.
  Expected<std::optional<json>> merge_map(json original, const json& patch, const std::string& path) {
    const std::string directive = directive_of(patch);
    if (directive == "delete") return std::optional<json>();
    if (directive == "replace") return std::optional<json>(without_directives(patch));
    if (auto refused = retain_keys_error(patch)) return *refused;
    json out = original.is_object() ? std::move(original) : json::object();
    std::vector<Frame> stack;
    stack.push_back(Frame{&out, &patch, path, patch.begin()});
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next == top.patch->end()) {
        finish_map(*top.target, *top.patch, top.path);
        stack.pop_back();
        continue;
      }
      const std::string& key = top.next.key();
      const json& value = top.next.value();
      ++top.next;
      json& target = *top.target;
      if (is_directive(key)) continue;
      if (value.is_null()) {
        target.erase(key);
        continue;
      }
      std::string field = child_path(top.path, key);
      if (value.is_object()) {
        const std::string child_directive = directive_of(value);
        if (child_directive == "delete") {
          target.erase(key);
        } else if (child_directive == "replace") {
          target[key] = without_directives(value);
        } else {
          if (auto refused = retain_keys_error(value)) return *refused;
          json& slot = target[key];
          if (!slot.is_object()) slot = json::object();
          stack.push_back(Frame{&slot, &value, std::move(field), value.begin()});  // `top` is stale now
        }
      } else if (value.is_array()) {
        auto current = target.contains(key) ? std::move(target[key]) : json::array();
        auto merged = merge_list(std::move(current), value, field);
        if (!merged) return merged.error();
        target[key] = std::move(merged.value());
      } else {
        target[key] = value;
      }
    }
    return std::optional<json>(std::move(out));
  }

 private:
  /// One map being merged: where the result goes, the patch map, its path, the next patch field.
  struct Frame {
    json* target;
    const json* patch;
    std::string path;
    json::const_iterator next;
  };

  /// The path of a field for strategy lookups; past the longest path a strategy names, no lookup
  /// can match, so the path stops growing (a path per level would cost memory quadratic in depth).
  [[nodiscard]] std::string child_path(const std::string& path, const std::string& key) const {
    if (path == k_beyond) return path;
    std::string out = path.empty() ? key : path + "." + key;
    return out.size() > m_longest ? std::string(k_beyond) : out;
  }

  [[nodiscard]] ListStrategy strategy_of(const std::string& path) const {
    const auto it = m_strategies.find(path);
    return it == m_strategies.end() ? ListStrategy{} : it->second;
  }

  /// What a map's directives do once its fields are merged: deletions from primitive lists, list
  /// orders, and the pruning of `$retainKeys`.
  void finish_map(json& out, const json& patch, const std::string& path) const {
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
      if (out.contains(list) && out[list].is_array())
        order_list(out[list], value, strategy_of(child_path(path, list)));
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
  }

  Expected<json> merge_list(json original, const json& patch, const std::string& path) {
    const ListStrategy strategy = strategy_of(path);
    const bool replace = std::any_of(patch.begin(), patch.end(),
                                     [](const json& item) { return directive_of(item) == "replace"; });
    if (!strategy.merge || replace || !original.is_array()) return without_directives(patch);
    json out = std::move(original);
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
      auto merged = merge_map(same != out.end() ? std::move(*same) : json::object(), item, path);
      if (!merged) return merged.error();
      if (!merged.value()) {
        if (same != out.end()) out.erase(same);  // moved from: it goes, as the delete says
        continue;
      }
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

  static constexpr std::string_view k_beyond = "\001beyond";  // no strategy's path
  const PatchStrategies& m_strategies;
  std::size_t m_longest = 0;
};

}  // namespace

const PatchStrategies* builtin_patch_strategies(const std::string& api_version, const std::string& kind) {
  static const auto table = load_strategies();
  const auto it = table.find(api_version + "/" + kind);
  return it == table.end() ? nullptr : &it->second;
}

Expected<json> strategic_merge(const json& original, const json& patch, const PatchStrategies& strategies) {
  Merger merger(strategies);
  auto merged = merger.merge_map(original, patch, "");  // the one copy of the original
  if (!merged) return merged.error();
  if (!merged.value()) return json::object();
  return std::move(*merged.value());
}

}  // namespace kpt::apiserver
