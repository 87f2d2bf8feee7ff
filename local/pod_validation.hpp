#pragma once

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace kpt::local {

/// The API server's checks on the pod fields the node turns into paths and names: container
/// names (log folders), `spec.hostname` and `spec.subdomain` (lines of the hosts file every pod
/// resolves with). A pod that reached the node without them (an API server that does not check,
/// a store written by hand) is refused with the API server's field error, e.g.
/// `spec.containers[0].name: Invalid value: "../x": a lowercase RFC 1123 label must consist of ...`.
std::optional<std::string> invalid_pod_field(const nlohmann::json& pod);

/// Whether `name` may become a path component or a host name: a DNS-1123 label.
bool is_safe_name(std::string_view name);

}  // namespace kpt::local
