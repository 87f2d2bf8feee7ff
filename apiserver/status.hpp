#pragma once

#include "apiserver/http_types.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace kpt::apiserver {

/// One entry of Status.details.causes.
struct StatusCause {
  std::string reason;  ///< FieldValueInvalid, FieldValueRequired, FieldValueNotSupported, ...
  std::string message;
  std::string field;
};

/// A failed API call, rendered as a Kubernetes `Status` object (kind Status, reason, code, details).
struct ApiError {
  int code = 500;
  std::string reason;  ///< NotFound, AlreadyExists, Conflict, Invalid, ...
  std::string message;
  nlohmann::json details;  ///< name, group, kind, causes, retryAfterSeconds; null when empty
};

/// A value or an ApiError; the apiserver's counterpart of kpt::Expected.
template <class T>
class [[nodiscard]] ApiResult {
 public:
  ApiResult(T value) : m_v(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  ApiResult(ApiError error) : m_v(std::move(error)) {}  // NOLINT(google-explicit-constructor)
  [[nodiscard]] bool ok() const { return m_v.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(m_v); }
  const T& value() const { return std::get<0>(m_v); }
  T& operator*() { return value(); }
  T* operator->() { return &value(); }
  [[nodiscard]] const ApiError& error() const { return std::get<1>(m_v); }

 private:
  std::variant<T, ApiError> m_v;
};

/// What Kubernetes calls a resource in messages: `pods`, `pytorchjobs.kubeflow.org`.
std::string qualified_resource(const std::string& group, const std::string& resource);

ApiError not_found(const std::string& group, const std::string& resource, const std::string& name);
ApiError already_exists(const std::string& group, const std::string& resource, const std::string& name);
ApiError conflict(const std::string& group, const std::string& resource, const std::string& name,
                  const std::string& why);
ApiError invalid(const std::string& group, const std::string& kind, const std::string& name,
                 const std::vector<StatusCause>& causes);
ApiError bad_request(const std::string& message);
ApiError method_not_supported(const std::string& group, const std::string& resource, const std::string& verb);
ApiError gone(const std::string& message);
ApiError unsupported_media_type(const std::string& content_type);
ApiError path_not_found();

/// The Status object for an error.
nlohmann::json status_json(const ApiError& error);
/// A success Status (deletes of collections, and others).
nlohmann::json success_status(const nlohmann::json& details = nullptr);
/// An HTTP response carrying the error's Status, with Retry-After when details say so.
HttpResponse error_response(const ApiError& error);
HttpResponse json_response(int status, const nlohmann::json& body);

}  // namespace kpt::apiserver
