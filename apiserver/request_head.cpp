#include "apiserver/request_head.hpp"

#include "apiserver/status.hpp"

#include <httplib.h>
#include <openssl/crypto.h>

#include <array>
#include <cctype>

namespace kpt::apiserver {

namespace {

bool blank(char c) { return c == ' ' || c == '\t'; }

std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

/// The words of a request line as httplib splits it: at spaces, blanks trimmed, empty words dropped.
std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start <= line.size()) {
    const auto space = line.find(' ', start);
    const auto word =
        trim_blanks(line.substr(start, space == std::string_view::npos ? line.npos : space - start));
    if (!word.empty()) out.push_back(word);
    if (space == std::string_view::npos) break;
    start = space + 1;
  }
  return out;
}

bool known_method(std::string_view m) {
  static constexpr std::array<std::string_view, 10> k_methods = {
      "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "PRI"};
  for (const auto k : k_methods) {
    if (k == m) return true;
  }
  return false;
}

bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

}  // namespace

Error request_header_fields_too_large(const std::string& why) {
  return make_api_error(431, "RequestHeaderFieldsTooLarge", "request header fields too large: " + why);
}

Expected<std::size_t> HeadScanner::scan(std::string_view received) {
  while (m_scanned < received.size()) {
    const auto newline = received.find('\n', m_scanned);
    const std::size_t end = newline == std::string_view::npos ? received.size() : newline + 1;
    const std::size_t length = end - m_line_start;  // so far, for a line not yet ended
    if (m_lines == 0 && length > m_limits.max_request_line) {
      return make_api_error(414, "RequestURITooLong",
                            "request-URI too long: the request line is over " +
                                std::to_string(m_limits.max_request_line) + " bytes");
    }
    if (m_lines > 0 && length > m_limits.max_header_line) {
      return request_header_fields_too_large("a header line is over " +
                                             std::to_string(m_limits.max_header_line) + " bytes");
    }
    if (end > m_limits.max_bytes) {
      return request_header_fields_too_large("the request head is over " +
                                             std::to_string(m_limits.max_bytes) + " bytes");
    }
    m_scanned = end;
    if (newline == std::string_view::npos) return std::size_t{0};
    if (m_lines > 0 && length == 2 && received[m_line_start] == '\r') return end;
    if (++m_lines > m_limits.max_header_lines + 1) {
      return request_header_fields_too_large("there are over " + std::to_string(m_limits.max_header_lines) +
                                             " header lines");
    }
    m_line_start = end;
  }
  return std::size_t{0};
}

std::string RequestHead::header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (same_name(k, name)) return v;
  }
  return {};
}

bool RequestHead::announces_body() const {
  for (const auto& [k, v] : headers) {
    if (same_name(k, "transfer-encoding")) return true;
    if (same_name(k, "content-length") && v != "0") return true;
  }
  return false;
}

Expected<RequestHead> parse_request_head(std::string_view head) {
  const auto first_end = head.find('\n');
  const auto malformed = [] { return bad_request("the request line is malformed"); };
  if (first_end == std::string_view::npos || first_end == 0 || head[first_end - 1] != '\r')
    return malformed();
  const auto parts = words(head.substr(0, first_end - 1));
  if (parts.size() != 3 || !known_method(parts[0]) || (parts[2] != "HTTP/1.1" && parts[2] != "HTTP/1.0"))
    return malformed();
  RequestHead out;
  out.method = std::string(parts[0]);
  out.target = std::string(parts[1]);
  out.version = std::string(parts[2]);
  const std::string_view target = parts[1].substr(0, parts[1].find('#'));
  out.path = httplib::detail::decode_url(std::string(target.substr(0, target.find('?'))), false);
  std::size_t start = first_end + 1;
  while (start < head.size()) {
    const auto end = head.find('\n', start);
    if (end == std::string_view::npos) break;
    const auto line = head.substr(start, end + 1 - start);
    start = end + 1;
    // As httplib: a line without CRLF is skipped, and so is one without a colon or a value.
    if (line.size() < 2 || line[line.size() - 2] != '\r') continue;
    if (line.size() == 2) break;
    const auto text = line.substr(0, line.size() - 2);
    const auto colon = text.find(':');
    if (colon == std::string_view::npos) continue;
    const auto value = trim_blanks(text.substr(colon + 1));
    if (value.empty()) continue;
    out.headers.emplace_back(std::string(text.substr(0, colon)), std::string(value));
  }
  return out;
}

bool bearer_token_matches(std::string_view authorization, std::string_view token) {
  constexpr std::string_view k_scheme = "Bearer ";
  if (authorization.size() != k_scheme.size() + token.size()) return false;
  if (authorization.substr(0, k_scheme.size()) != k_scheme) return false;
  return CRYPTO_memcmp(authorization.data() + k_scheme.size(), token.data(), token.size()) == 0;
}

bool is_health_path(std::string_view path) {
  return path == "/healthz" || path == "/livez" || path == "/readyz";
}

}  // namespace kpt::apiserver
