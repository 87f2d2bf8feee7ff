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

/// Decodes a delete request's protobuf body (the same envelope) into the JSON form of its
/// meta/v1 DeleteOptions, as the real server accepts it under any apiVersion ("v1",
/// "meta.k8s.io/v1", a group's). An envelope of another kind decodes to just its apiVersion and
/// kind, for the caller to refuse; the errors are decode_protobuf_body's.
Expected<nlohmann::json> decode_protobuf_delete_options(std::string_view body,
                                                        const ProtobufLimits& limits = {});

}  // namespace kpt::apiserver
