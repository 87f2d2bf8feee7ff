#pragma once

#include "apiserver/status.hpp"
#include "apiserver/strategic_merge.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace kpt::apiserver {

enum class PatchKind { merge, json, strategic, apply };

/// The patch kind for a PATCH Content-Type, or nullopt when the type is not supported.
std::optional<PatchKind> patch_kind_of(const std::string& content_type);

/// Decodes a patch body: JSON for merge/JSON/strategic patches; JSON or YAML for apply.
Expected<nlohmann::json> parse_patch_body(PatchKind kind, const std::string& body);

/// Applies a decoded patch to `base`. Merge (RFC 7386) and apply replace lists; a strategic
/// merge patch merges the lists `strategies` names (a built-in kind's) and replaces the others;
/// JSON patch is RFC 6902.
Expected<nlohmann::json> apply_patch(PatchKind kind, const nlohmann::json& base, const nlohmann::json& patch,
                                     const PatchStrategies* strategies = nullptr);

}  // namespace kpt::apiserver
