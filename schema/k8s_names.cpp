#include "schema/k8s_names.hpp"

namespace kpt::schema {
namespace {

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_alnum(char c) { return is_lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

std::string max_len_error(std::size_t max) {
  return "must be no more than " + std::to_string(max) + " characters";
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
bool is_dns1123_label(std::string_view v) {
  if (v.empty() || !is_lower_alnum(v.front()) || !is_lower_alnum(v.back())) return false;
  for (char c : v) {
    if (!is_lower_alnum(c) && c != '-') return false;
  }
  return true;
}

bool is_dns1123_subdomain(std::string_view v) {
  if (v.empty()) return false;
  std::size_t start = 0;
  while (true) {
    const auto dot = v.find('.', start);
    const auto part = v.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (!is_dns1123_label(part)) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
bool is_qualified_name_part(std::string_view v) {
  if (v.empty() || !is_alnum(v.front()) || !is_alnum(v.back())) return false;
  for (char c : v) {
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

const char* const k_label_fmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const char* const k_qualified_fmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";

std::string subdomain_regex_error() {
  return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
         "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation "
         "is '" +
         std::string(k_label_fmt) + "(\\." + k_label_fmt + ")*')";
}

std::string qualified_name_regex_error() {
  return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
         "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
         "'" +
         std::string(k_qualified_fmt) + "')";
}

}  // namespace

std::vector<std::string> dns1123_label_errors(std::string_view value) {
  std::vector<std::string> out;
  if (value.size() > k_dns1123_label_max) out.push_back(max_len_error(k_dns1123_label_max));
  if (!is_dns1123_label(value)) {
    out.push_back(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
        "start and "
        "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '" +
        std::string(k_label_fmt) + "')");
  }
  return out;
}

std::vector<std::string> dns1123_subdomain_errors(std::string_view value) {
  std::vector<std::string> out;
  if (value.size() > k_dns1123_subdomain_max) out.push_back(max_len_error(k_dns1123_subdomain_max));
  if (!is_dns1123_subdomain(value)) out.push_back(subdomain_regex_error());
  return out;
}

std::vector<std::string> dns1035_label_errors(std::string_view value) {
  std::vector<std::string> out;
  if (value.size() > k_dns1035_label_max) out.push_back(max_len_error(k_dns1035_label_max));
  const bool ok = is_dns1123_label(value) && value.front() >= 'a' && value.front() <= 'z';
  if (!ok) {
    out.push_back(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
        "alphabetic "
        "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
        "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')");
  }
  return out;
}

std::vector<std::string> qualified_name_errors(std::string_view value) {
  std::vector<std::string> out;
  std::string_view name = value;
  const auto slash = value.find('/');
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      out.push_back(
          "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
          "with "
          "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation "
          "is '" +
          std::string(k_qualified_fmt) +
          "') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return out;
    }
    const auto prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      out.emplace_back("prefix part must be non-empty");
    } else {
      for (auto& msg : dns1123_subdomain_errors(prefix)) out.push_back("prefix part " + msg);
    }
  }
  if (name.empty()) {
    out.emplace_back("name part must be non-empty");
  } else if (name.size() > k_qualified_name_max) {
    out.push_back("name part " + max_len_error(k_qualified_name_max));
  }
  if (!name.empty() && !is_qualified_name_part(name)) out.push_back(qualified_name_regex_error());
  return out;
}

std::vector<std::string> label_value_errors(std::string_view value) {
  std::vector<std::string> out;
  if (value.size() > k_label_value_max) out.push_back(max_len_error(k_label_value_max));
  if (!value.empty() && !is_qualified_name_part(value)) {
    out.push_back(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
        "must "
        "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex "
        "used for "
        "validation is '(" +
        std::string(k_qualified_fmt) + ")?')");
  }
  return out;
}

std::vector<std::string> annotations_size_errors(std::size_t total_bytes) {
  if (total_bytes <= k_total_annotation_size_max) return {};
  return {"must have at most " + std::to_string(k_total_annotation_size_max) + " bytes"};
}

}  // namespace kpt::schema
