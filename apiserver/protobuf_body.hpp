#pragma once

#include "apiserver/status.hpp"

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace kpt::apiserver {

/// Whether a Content-Type names Kubernetes' protobuf encoding.
bool is_protobuf_content_type(const std::string& content_type);

struct ProtobufLimits {
  std::size_t max_bytes = 3 * 1024 * 1024 + 64 * 1024;  ///< the real server's 3 MiB object, plus the envelope
  int max_depth = 32;                                   ///< message nesting (the deepest kind needs 12)
};

/// Decodes a Kubernetes protobuf request body (the 4-byte "k8s\0" magic, then runtime.Unknown with
/// the object's apiVersion, kind and bytes) into the object's JSON form, as the real server would
/// have read the same object sent as JSON. Only the kinds and fields this server knows are read:
/// any other field is 415 UnsupportedMediaType naming it (never dropped), a body that is not
/// valid protobuf or deeper than the limit is 400 BadRequest, one larger than the limit is 413.
Expected<nlohmann::json> decode_protobuf_body(std::string_view body, const ProtobufLimits& limits = {});

}  // namespace kpt::apiserver
