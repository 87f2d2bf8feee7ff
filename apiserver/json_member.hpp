#pragma once

#include <nlohmann/json.hpp>

namespace kpt::apiserver {

/// `object[field]` when `object` is a map holding it, else a null: validation reads objects as
/// clients wrote them, where any field may be missing or of another type.
inline const nlohmann::json& member(const nlohmann::json& object, const char* field) {
  static const nlohmann::json k_null;
  if (!object.is_object()) return k_null;
  const auto it = object.find(field);
  return it == object.end() ? k_null : *it;
}

}  // namespace kpt::apiserver
