#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kpt::util {

/// Standard base64 with padding, as kubeconfig `*-data` fields use.
std::string base64_encode(std::string_view data);
/// std::nullopt when `text` is not valid base64 (whitespace is ignored).
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace kpt::util
