#include "apiserver/body_limits.hpp"

#include <string>

namespace kpt::apiserver {

namespace {

std::string too_deep_message() {
  return "the body of the request nests deeper than " + std::to_string(k_max_json_depth) + " levels";
}

}  // namespace

Error request_entity_too_large() {
  return make_api_error(413, "RequestEntityTooLarge",
                        "Request entity too large: limit is " + std::to_string(k_max_request_body_bytes));
}

std::optional<Error> json_too_deep(std::string_view body) {
  std::size_t depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : body) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > k_max_json_depth) {
        return bad_request(too_deep_message());
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

bool refuses_body(const Error& error) {
  return error.http_status == 413 || (error.http_status == 400 && error.message == too_deep_message());
}

}  // namespace kpt::apiserver
