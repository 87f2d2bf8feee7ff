#pragma once

#include "apiserver/http_types.hpp"
#include "util/expected.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kpt::apiserver {

/// Parses an integer as Go's strconv.ParseInt(text, 10, 64), which kube-apiserver's query
/// decoding uses: an optional sign and decimal digits, nothing else. The error is a 400 with Go's
/// message (`strconv.ParseInt: parsing "abc": invalid syntax`, `... value out of range`).
Expected<std::int64_t> parse_go_int64(std::string_view text);

/// The integer query parameter `name`: nullopt when absent, a 400 when malformed (as above).
Expected<std::optional<std::int64_t>> int64_param(const HttpRequest& request, const std::string& name);

}  // namespace kpt::apiserver
