#pragma once

// An object's metadata read without throwing (see util/json_access.hpp): "" for a field that is
// missing or of another type.

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <string_view>

namespace kpt::model::k8s {

/// metadata.<field> when it is a string, else "".
std::string meta_string(const nlohmann::json& object, std::string_view field);

/// metadata.name, metadata.namespace, metadata.uid.
std::string name_of(const nlohmann::json& object);
std::string namespace_of(const nlohmann::json& object);
std::string uid_of(const nlohmann::json& object);

/// An ownerReference to `owner` as its controller (controller and blockOwnerDeletion true).
nlohmann::json controller_reference(std::string_view api_version, std::string_view kind,
                                    const nlohmann::json& owner);

/// The value of the label `key`, or "".
std::string label_of(const nlohmann::json& object, std::string_view key);

}  // namespace kpt::model::k8s
