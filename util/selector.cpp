#include "util/selector.hpp"

#include "util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

namespace kpt::util {
namespace {

std::string trim_copy(const std::string& s) {
  std::size_t b = 0;
  std::size_t e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b])) != 0) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])) != 0) --e;
  return s.substr(b, e - b);
}

/// Splits at commas that are not inside parentheses.
std::vector<std::string> split_terms(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (const char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim_copy(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(trim_copy(cur));
  return out;
}

bool valid_key(const std::string& key) {
  if (key.empty() || key.size() > 316) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.' || c == '/';
  });
}

Error selector_error(const std::string& what, const std::string& term) {
  return make_error(ErrorCode::usage, "unable to parse requirement: " + what + " in " + util::quote(term));
}

/// `k=v`, `k==v` or `k!=v`; nothing when the term has no operator.
std::optional<Requirement> parse_equality(const std::string& term) {
  Requirement r;
  std::size_t at = std::string::npos;
  std::size_t len = 0;
  if ((at = term.find("!=")) != std::string::npos) {
    r.op = Requirement::Op::not_equals;
    len = 2;
  } else if ((at = term.find("==")) != std::string::npos) {
    len = 2;
  } else if ((at = term.find('=')) != std::string::npos) {
    len = 1;
  } else {
    return std::nullopt;
  }
  r.key = trim_copy(term.substr(0, at));
  r.values.push_back(trim_copy(term.substr(at + len)));
  return r;
}

Expected<Requirement> parse_set_term(const std::string& term, std::size_t at, std::size_t op_len,
                                     Requirement::Op op) {
  Requirement r;
  r.key = trim_copy(term.substr(0, at));
  r.op = op;
  const std::string rest = trim_copy(term.substr(at + op_len));
  if (rest.size() < 2 || rest.front() != '(' || rest.back() != ')')
    return selector_error("expected '(values)'", term);
  std::string inner = rest.substr(1, rest.size() - 2);
  std::size_t start = 0;
  while (start <= inner.size()) {
    const auto comma = inner.find(',', start);
    const auto v =
        trim_copy(inner.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (!v.empty()) r.values.push_back(v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (!valid_key(r.key)) return selector_error("invalid label key", term);
  return r;
}

Expected<Requirement> parse_label_term(const std::string& term) {
  if (term.rfind('!', 0) == 0) {
    Requirement r{trim_copy(term.substr(1)), Requirement::Op::not_exists, {}};
    if (!valid_key(r.key)) return selector_error("invalid label key", term);
    return r;
  }
  if (const auto p = term.find(" notin "); p != std::string::npos) {
    return parse_set_term(term, p, 7, Requirement::Op::not_in);
  }
  if (const auto p = term.find(" in "); p != std::string::npos)
    return parse_set_term(term, p, 4, Requirement::Op::in);
  Requirement r = parse_equality(term).value_or(Requirement{term, Requirement::Op::exists, {}});
  if (!valid_key(r.key)) return selector_error("invalid label key", term);
  return r;
}

bool match_requirement(const Requirement& r, const std::string* value) {
  switch (r.op) {
    case Requirement::Op::exists:
      return value != nullptr;
    case Requirement::Op::not_exists:
      return value == nullptr;
    case Requirement::Op::equals:
      return value != nullptr && *value == r.values.front();
    case Requirement::Op::not_equals:
      return value == nullptr || *value != r.values.front();
    case Requirement::Op::in:
      return value != nullptr && std::find(r.values.begin(), r.values.end(), *value) != r.values.end();
    case Requirement::Op::not_in:
      return value == nullptr || std::find(r.values.begin(), r.values.end(), *value) == r.values.end();
  }
  return false;
}

}  // namespace

Expected<std::vector<Requirement>> parse_label_selector(const std::string& text) {
  std::vector<Requirement> out;
  if (trim_copy(text).empty()) return out;
  for (const auto& term : split_terms(text)) {
    if (term.empty()) return selector_error("empty requirement", text);
    auto r = parse_label_term(term);
    if (!r) return r.error();
    out.push_back(std::move(*r));
  }
  return out;
}

Expected<std::vector<Requirement>> parse_field_selector(const std::string& text) {
  std::vector<Requirement> out;
  if (trim_copy(text).empty()) return out;
  for (const auto& term : split_terms(text)) {
    auto r = parse_equality(term);
    if (!r)
      return make_error(ErrorCode::usage,
                        "invalid selector: " + util::quote(term) + "; can't understand " + util::quote(term));
    out.push_back(std::move(*r));
  }
  return out;
}

bool selector_matches(const std::vector<Requirement>& requirements,
                      const std::function<const std::string*(const std::string&)>& value_of) {
  return std::all_of(requirements.begin(), requirements.end(),
                     [&](const Requirement& r) { return match_requirement(r, value_of(r.key)); });
}

}  // namespace kpt::util
