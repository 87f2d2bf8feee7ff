#pragma once

#include "apiserver/http_types.hpp"
#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kpt::apiserver {

// A failed API call is a kpt::Error with ErrorCode::api, the HTTP status, the Status reason
// (NotFound, AlreadyExists, Conflict, Invalid, ...) and details; error_response renders it as a
// Kubernetes `Status` object.
using StatusCause = ErrorCause;

/// What Kubernetes calls a resource in messages: `pods`, `pytorchjobs.kubeflow.org`.
std::string qualified_resource(const std::string& group, const std::string& resource);

Error not_found(const std::string& group, const std::string& resource, const std::string& name);
Error already_exists(const std::string& group, const std::string& resource, const std::string& name);
Error conflict(const std::string& group, const std::string& resource, const std::string& name,
               const std::string& why);
Error invalid(const std::string& group, const std::string& kind, const std::string& name,
              const std::vector<StatusCause>& causes);
Error bad_request(const std::string& message);
Error method_not_supported(const std::string& group, const std::string& resource, const std::string& verb);
Error gone(const std::string& message);
Error unsupported_media_type(const std::string& content_type);
Error path_not_found();

/// The Status object for an error.
nlohmann::json status_json(const Error& error);
/// A success Status (deletes of collections, and others).
nlohmann::json success_status(const nlohmann::json& details = nullptr);
/// An HTTP response carrying the error's Status, with Retry-After when details say so.
HttpResponse error_response(const Error& error);
HttpResponse json_response(int status, const nlohmann::json& body);

}  // namespace kpt::apiserver
