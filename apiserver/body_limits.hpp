#pragma once

#include "apiserver/status.hpp"

#include <cstddef>
#include <optional>
#include <string_view>

namespace kpt::apiserver {

/// The real API server's limit on a request body (k8s.io/apiserver pkg/server/config.go
/// MaxRequestBodyBytes, 3 MiB): a bigger one is refused with 413 before it is decoded.
inline constexpr std::size_t k_max_request_body_bytes = 3 * 1024 * 1024;

/// How deep a JSON body may nest: Go's encoding/json (and so the real server's decoder) stops at
/// 10000 levels; deeper input would only exhaust the stack of whatever walks it.
inline constexpr std::size_t k_max_json_depth = 10000;

/// 413 RequestEntityTooLarge with the real server's message.
Error request_entity_too_large();

/// 400 when `body`, read as JSON, opens more than k_max_json_depth arrays and objects at once.
/// A linear scan that skips strings, run before a parser (recursive or not) sees the text.
std::optional<Error> json_too_deep(std::string_view body);

/// Whether an error refuses the request's body itself (413 too large, 400 too deep): the bytes the
/// client may still be sending are not worth reading, nor safe to read as further requests, so
/// the connection ends after the answer.
bool refuses_body(const Error& error);

}  // namespace kpt::apiserver
