#include "model/k8s/strategic_merge.hpp"

#include "util/json_access.hpp"

#include <algorithm>
#include <optional>
#include <string_view>
#include <vector>

namespace kpt::model::k8s {

namespace {

using json = nlohmann::json;

constexpr std::string_view k_order_prefix = "$setElementOrder/";
constexpr std::string_view k_delete_prefix = "$deleteFromPrimitiveList/";

bool is_patch_directive(std::string_view key) { return !key.empty() && key.front() == '$'; }

/// The `$patch` directive of a patch map ("replace", "delete", "merge"), or "" (a value of
/// another type included: a patch is untrusted).
std::string patch_directive_of(const json& value) {
  const json* directive = util::child(value, "$patch");
  return directive != nullptr && directive->is_string() ? directive->get<std::string>() : std::string();
}

/// A value from a patch as it is when nothing is merged into it: no `$` fields, no list item that
/// is a directive (with directives), no empty list (with omit_empty_lists). Iterative, as a patch
/// nests as deep as its parser allows.
json patch_value_alone(const json& value, const MergeOptions& options) {
  json out;
  struct Step {
    const json* from;
    json* to;
  };
  std::vector<Step> todo{{&value, &out}};
  while (!todo.empty()) {
    const Step step = todo.back();
    todo.pop_back();
    if (step.from->is_object()) {
      *step.to = json::object();
      for (const auto& [key, item] : step.from->items()) {
        if (is_patch_directive(key)) continue;
        if (options.omit_empty_lists && item.is_array() && item.empty()) continue;
        todo.push_back({&item, &(*step.to)[key]});  // a map's members stay where they are
      }
    } else if (step.from->is_array()) {
      std::vector<const json*> kept;
      for (const auto& item : *step.from) {
        if (options.directives && util::child(item, "$patch") != nullptr) continue;
        kept.push_back(&item);
      }
      *step.to = json::array();
      auto& items = step.to->get_ref<json::array_t&>();
      items.resize(kept.size());  // never resized again: the pointers below stay valid
      for (std::size_t i = 0; i < kept.size(); ++i) todo.push_back({kept[i], &items[i]});
    } else {
      *step.to = *step.from;
    }
  }
  return out;
}

/// The `$retainKeys` check of a patch map: the fields it sets must be among those it retains, or
/// it would drop what it sets.
std::optional<Error> retain_keys_error(const json& patch) {
  const json* keep = util::child(patch, "$retainKeys");
  if (keep == nullptr || !keep->is_array()) return std::nullopt;
  for (const auto& [key, value] : patch.items()) {
    if (is_patch_directive(key) || std::find(keep->begin(), keep->end(), json(key)) != keep->end()) continue;
    return make_error(ErrorCode::invalid, "field " + key + " is not present in the $retainKeys list");
  }
  return std::nullopt;
}

/// The merge, iterative over nested maps: a patch may nest maps as deep as the server accepts
/// JSON, and a recursive merge overflowed the stack at 7,000 levels. Lists recurse into their
/// items only where a strategy names the list, and the strategies name paths a few levels deep.
class Merger {
 public:
  Merger(const PatchStrategies& strategies, const MergeOptions& options)
      : m_strategies(strategies), m_options(options) {
    for (const auto& [path, strategy] : strategies) m_longest = std::max(m_longest, path.size());
  }

  /// The merged map, or nullopt for `$patch: delete`.
  Expected<std::optional<json>> merge_map(json original, const json& patch, const std::string& path) {
    if (m_options.directives) {
      const std::string directive = patch_directive_of(patch);
      if (directive == "delete") return std::optional<json>();
      if (directive == "replace") return std::optional<json>(patch_value_alone(patch, m_options));
      if (auto refused = retain_keys_error(patch)) return *refused;
    }
    json out = original.is_object() ? std::move(original) : json::object();
    std::vector<Frame> stack;
    stack.push_back(Frame{&out, &patch, path, patch.begin()});
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next == top.patch->end()) {
        if (m_options.directives) finish_map(*top.target, *top.patch, top.path);
        stack.pop_back();
        continue;
      }
      const std::string& key = top.next.key();
      const json& value = top.next.value();
      ++top.next;
      json& target = *top.target;
      if (is_patch_directive(key)) continue;
      if (m_options.omit_empty_lists && value.is_array() && value.empty()) continue;
      if (value.is_null()) {
        target.erase(key);
        continue;
      }
      std::string field = child_path(top.path, key);
      if (value.is_object()) {
        const std::string child_directive = m_options.directives ? patch_directive_of(value) : std::string();
        if (child_directive == "delete") {
          target.erase(key);
        } else if (child_directive == "replace") {
          target[key] = patch_value_alone(value, m_options);
        } else {
          if (m_options.directives) {
            if (auto refused = retain_keys_error(value)) return *refused;
          }
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
      if (key.rfind(k_delete_prefix, 0) != 0 || !value.is_array()) continue;
      const std::string list = key.substr(k_delete_prefix.size());
      if (!out.contains(list) || !out[list].is_array()) continue;
      auto& items = out[list];
      const json& gone = value;  // clang 14 does not capture structured bindings
      items.erase(
          std::remove_if(items.begin(), items.end(),
                         [&](const json& v) { return std::find(gone.begin(), gone.end(), v) != gone.end(); }),
          items.end());
    }
    for (const auto& [key, value] : patch.items()) {
      if (key.rfind(k_order_prefix, 0) != 0 || !value.is_array()) continue;
      const std::string list = key.substr(k_order_prefix.size());
      if (out.contains(list) && out[list].is_array())
        order_list(out[list], value, strategy_of(child_path(path, list)));
    }
    const json* keep = util::child(patch, "$retainKeys");
    if (keep == nullptr || !keep->is_array()) return;
    for (auto it = out.begin(); it != out.end();) {
      if (std::find(keep->begin(), keep->end(), json(it.key())) == keep->end()) {
        it = out.erase(it);
      } else {
        ++it;
      }
    }
  }

  Expected<json> merge_list(json original, const json& patch, const std::string& path) {
    const ListStrategy strategy = strategy_of(path);
    const bool replace = m_options.directives &&
                         std::any_of(patch.begin(), patch.end(),
                                     [](const json& item) { return patch_directive_of(item) == "replace"; });
    if (strategy.merge && !original.is_array() && m_options.merge_into_non_list) original = json::array();
    if (!strategy.merge || replace || !original.is_array()) return patch_value_alone(patch, m_options);
    json out = std::move(original);
    if (strategy.merge_key.empty()) {
      for (const auto& item : patch) {
        if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
      }
      return out;
    }
    const std::string& key = strategy.merge_key;
    for (const auto& item : patch) {
      const json* id = util::child(item, key);
      if (id == nullptr) {
        if (m_options.require_merge_key) {
          return make_error(ErrorCode::invalid,
                            "map: " + item.dump() + " does not contain declared merge key: " + key);
        }
        if (!item.is_object()) {
          out.push_back(patch_value_alone(item, m_options));
          continue;
        }
      }
      const auto same = id == nullptr ? out.end() : std::find_if(out.begin(), out.end(), [&](const json& o) {
        const json* other = util::child(o, key);
        return other != nullptr && *other == *id;
      });
      if (m_options.directives && patch_directive_of(item) == "delete") {
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
      return util::member(v, strategy.merge_key);
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
  const MergeOptions& m_options;
  std::size_t m_longest = 0;
};

}  // namespace

Expected<nlohmann::json> strategic_merge(nlohmann::json original, const nlohmann::json& patch,
                                         const PatchStrategies& strategies, const MergeOptions& options) {
  if (!patch.is_object()) return original;
  Merger merger(strategies, options);
  auto merged = merger.merge_map(std::move(original), patch, "");
  if (!merged) return merged.error();
  if (!merged.value()) return json::object();
  return std::move(*merged.value());
}

}  // namespace kpt::model::k8s
