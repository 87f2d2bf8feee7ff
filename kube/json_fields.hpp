#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace kpt::kube {

/// `object[key]` when `object` is an object and that member a string, else "". What a server or an
/// exec plugin sends is untrusted: nlohmann's value("k", "") throws on a member of another type.
std::string string_field(const nlohmann::json& object, const char* key);

}  // namespace kpt::kube
