#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace kpt {

/// Kinds of operational failure. Each maps to a documented exit code at the top.
enum class ErrorCode {
  io,         ///< reading or writing a file or stream failed
  parse,      ///< input is not well-formed YAML/JSON
  limit,      ///< input exceeds a configured bound (size, depth, aliases)
  usage,      ///< the user asked for something that cannot be done
  config,     ///< kubeconfig or credentials are wrong
  http,       ///< transport failure talking to an API server
  api,        ///< the API server answered with a Status error
  not_found,  ///< the named thing does not exist
  timeout,    ///< a deadline passed
  internal,   ///< a broken invariant surfaced as a value
};

/// An operational error: what failed, in words a user understands. Each layer adds
/// what it knows with `context()`, so the final message reads outermost first.
struct Error {
  ErrorCode code = ErrorCode::internal;
  std::string message;
  int http_status = 0;  ///< for ErrorCode::api: the HTTP status (404, 409, 410, ...)
  std::string reason;   ///< for ErrorCode::api: the Status reason (NotFound, AlreadyExists, ...)

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

}  // namespace kpt
