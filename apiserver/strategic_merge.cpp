#include "apiserver/strategic_merge.hpp"

#include "schema/builtin/builtin_schema.hpp"
#include "util/json_access.hpp"

#include <map>

namespace kpt::apiserver {

namespace {

using json = nlohmann::json;

std::map<std::string, PatchStrategies, std::less<>> load_strategies() {
  std::map<std::string, PatchStrategies, std::less<>> out;
  const auto table = json::parse(schema::builtin_patch_keys_json());
  for (const auto& [kind, lists] : table.items()) {
    auto& strategies = out[kind];
    for (const auto& [path, entry] : lists.items()) {
      const std::string strategy = util::string_at(entry, "strategy");
      ListStrategy s;
      s.merge_key = util::string_at(entry, "key");
      s.merge = strategy.find("merge") != std::string::npos;
      s.retain_keys = strategy.find("retainKeys") != std::string::npos;
      strategies.emplace(path, std::move(s));
    }
  }
  return out;
}

}  // namespace

const PatchStrategies* builtin_patch_strategies(const std::string& api_version, const std::string& kind) {
  static const auto table = load_strategies();
  const auto it = table.find(api_version + "/" + kind);
  return it == table.end() ? nullptr : &it->second;
}

Expected<json> strategic_merge(const json& original, const json& patch, const PatchStrategies& strategies) {
  auto merged = model::k8s::strategic_merge(original, patch, strategies, model::k8s::k_request_patch);
  if (!merged && merged.error().code == ErrorCode::invalid)
    return make_api_error(422, "Invalid", merged.error().message);
  return merged;
}

}  // namespace kpt::apiserver
