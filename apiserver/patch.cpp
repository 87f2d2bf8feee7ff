#include "apiserver/patch.hpp"

#include "apiserver/body_limits.hpp"
#include "yaml/manifest_reader.hpp"
#include "yaml/node_json.hpp"

#include <memory>
#include <optional>

namespace kpt::apiserver {

namespace {

using json = nlohmann::json;

Expected<json> parse_yaml(const std::string& body) {
  auto text = std::make_shared<const std::string>(body);
  auto read = yaml::read_manifests("<request>", text);
  if (!read.findings.empty()) return bad_request("error decoding YAML: " + read.findings.front().message);
  if (read.documents.size() != 1) return bad_request("error decoding YAML: expected exactly one document");
  return yaml::to_json(read.documents.front().root);
}

}  // namespace

std::optional<PatchKind> patch_kind_of(const std::string& content_type) {
  const auto base = content_type.substr(0, content_type.find(';'));
  if (base == "application/merge-patch+json") return PatchKind::merge;
  if (base == "application/json-patch+json") return PatchKind::json;
  if (base == "application/strategic-merge-patch+json") return PatchKind::strategic;
  if (base == "application/apply-patch+yaml") return PatchKind::apply;
  return std::nullopt;
}

Expected<json> parse_patch_body(PatchKind kind, const std::string& body) {
  if (auto deep = json_too_deep(body)) return *deep;
  auto parsed = json::parse(body, nullptr, false);
  if (parsed.is_discarded()) {
    if (kind == PatchKind::apply) return parse_yaml(body);
    return bad_request("error decoding patch: invalid JSON");
  }
  if (kind == PatchKind::json && !parsed.is_array()) {
    return bad_request("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
  }
  if (kind != PatchKind::json && !parsed.is_object())
    return bad_request("error decoding patch: not an object");
  return parsed;
}

Expected<json> apply_patch(PatchKind kind, const json& base, const json& patch,
                           const PatchStrategies* strategies) {
  json out = base;
  switch (kind) {
    case PatchKind::json:
      try {
        return base.patch(patch);
      } catch (const json::exception& e) {
        return make_api_error(
            422, "Invalid",
            std::string("the server rejected our request due to an error in our request: ") + e.what());
      }
    case PatchKind::strategic: {
      static const PatchStrategies k_none;
      return strategic_merge(base, patch, strategies != nullptr ? *strategies : k_none);
    }
    case PatchKind::merge:
    case PatchKind::apply:
      out.merge_patch(patch);
      return out;
  }
  return out;
}

}  // namespace kpt::apiserver
