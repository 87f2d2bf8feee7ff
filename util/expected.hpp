#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace kpt {

/// Kinds of operational failure. Each maps to a documented exit code in one place, where the
/// command line turns an Error into its exit status (plugin/failure.hpp): io, parse, limit, usage
/// and config are usage or I/O errors (2); the others mean the operation failed (1).
enum class ErrorCode {
  io,         ///< reading or writing a file or stream failed
  parse,      ///< input is not well-formed YAML/JSON
  limit,      ///< input exceeds a configured bound (size, depth, aliases)
  usage,      ///< the user asked for something that cannot be done
  config,     ///< kubeconfig or credentials are wrong
  invalid,    ///< well-formed input that breaks a rule (a job the operator cannot run)
  http,       ///< transport failure talking to an API server
  api,        ///< the API server answered with a Status error
  not_found,  ///< the named thing does not exist
  timeout,    ///< a deadline passed
  internal,   ///< a broken invariant surfaced as a value
};

/// One of the causes an API server lists for a failed request: which field, and why.
struct ErrorCause {
  std::string reason;  ///< FieldValueInvalid, FieldValueRequired, FieldValueNotSupported, ...
  std::string message;
  std::string field;
};

/// What an API server says about a failure besides its status and reason (a Kubernetes
/// Status' `details`): the object it concerns, the causes, when to retry.
struct ErrorDetails {
  std::string name;
  std::string group;
  std::string kind;
  std::vector<ErrorCause> causes;
  int retry_after_seconds = 0;  ///< 0: not said

  [[nodiscard]] bool empty() const {
    return name.empty() && group.empty() && kind.empty() && causes.empty() && retry_after_seconds == 0;
  }
};

/// An operational error: what failed, in words a user understands. Each layer adds
/// what it knows with `context()`, so the final message reads outermost first.
/// Errors from (or for) an API server carry ErrorCode::api, the HTTP status and the
/// Status reason and details; the API server renders them, the client decodes them.
struct Error {
  ErrorCode code = ErrorCode::internal;
  std::string message;
  int http_status = 0;   ///< for ErrorCode::api: the HTTP status (404, 409, 410, ...)
  std::string reason;    ///< for ErrorCode::api: the Status reason (NotFound, AlreadyExists, ...)
  ErrorDetails details;  ///< for ErrorCode::api: the Status details, when there are any

  /// Returns a copy whose message is `prefix: message`.
  [[nodiscard]] Error context(const std::string& prefix) const {
    Error out = *this;
    out.message = prefix + ": " + message;
    return out;
  }
};

/// A value or an Error. Small stand-in for std::expected (C++23, not in GCC 12).
template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : m_v(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Expected(Error error) : m_v(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool has_value() const { return m_v.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & {
    assert(has_value());
    return std::get<0>(m_v);
  }
  const T& value() const& {
    assert(has_value());
    return std::get<0>(m_v);
  }
  T&& value() && {
    assert(has_value());
    return std::get<0>(std::move(m_v));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  [[nodiscard]] const Error& error() const {
    assert(!has_value());
    return std::get<1>(m_v);
  }

 private:
  std::variant<T, Error> m_v;
};

template <>
class [[nodiscard]] Expected<void> {
 public:
  Expected() = default;
  Expected(Error error) : m_error(std::move(error)), m_ok(false) {}  // NOLINT(google-explicit-constructor)
  [[nodiscard]] bool has_value() const { return m_ok; }
  explicit operator bool() const { return m_ok; }
  [[nodiscard]] const Error& error() const {
    assert(!m_ok);
    return m_error;
  }

 private:
  Error m_error;
  bool m_ok = true;
};

inline Error make_error(ErrorCode code, std::string message) {
  Error e;
  e.code = code;
  e.message = std::move(message);
  return e;
}

/// An error an API server answers with: HTTP status, Status reason, message and details.
inline Error make_api_error(int http_status, std::string reason, std::string message,
                            ErrorDetails details = {}) {
  Error e = make_error(ErrorCode::api, std::move(message));
  e.http_status = http_status;
  e.reason = std::move(reason);
  e.details = std::move(details);
  return e;
}

}  // namespace kpt
