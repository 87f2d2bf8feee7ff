#include "apiserver/selectors.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

namespace kpt::apiserver {

namespace {

std::string trim(const std::string& s) {
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
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(trim(cur));
  return out;
}

bool valid_key(const std::string& key) {
  if (key.empty() || key.size() > 316) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.' || c == '/';
  });
}

Error selector_error(const std::string& what, const std::string& term) {
  return make_error(ErrorCode::usage, "unable to parse requirement: " + what + " in '" + term + "'");
}

Expected<Requirement> parse_set_term(const std::string& term, std::size_t at, std::size_t op_len,
                                     Requirement::Op op) {
  Requirement r;
  r.key = trim(term.substr(0, at));
  r.op = op;
  const std::string rest = trim(term.substr(at + op_len));
  if (rest.size() < 2 || rest.front() != '(' || rest.back() != ')') return selector_error("expected '(values)'", term);
  std::string inner = rest.substr(1, rest.size() - 2);
  std::size_t start = 0;
  while (start <= inner.size()) {
    const auto comma = inner.find(',', start);
    const auto v = trim(inner.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (!v.empty()) r.values.push_back(v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (!valid_key(r.key)) return selector_error("invalid label key", term);
  return r;
}

Expected<Requirement> parse_label_term(const std::string& term) {
  if (term.rfind('!', 0) == 0) {
    Requirement r{trim(term.substr(1)), Requirement::Op::not_exists, {}};
    if (!valid_key(r.key)) return selector_error("invalid label key", term);
    return r;
  }
  if (const auto p = term.find(" notin "); p != std::string::npos) {
    return parse_set_term(term, p, 7, Requirement::Op::not_in);
  }
  if (const auto p = term.find(" in "); p != std::string::npos) return parse_set_term(term, p, 4, Requirement::Op::in);
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
  }
  if (at == std::string::npos) {
    r.key = term;
    r.op = Requirement::Op::exists;
  } else {
    r.key = trim(term.substr(0, at));
    r.values.push_back(trim(term.substr(at + len)));
  }
  if (!valid_key(r.key)) return selector_error("invalid label key", term);
  return r;
}

bool match_requirement(const Requirement& r, const std::string* value) {
  switch (r.op) {
    case Requirement::Op::exists: return value != nullptr;
    case Requirement::Op::not_exists: return value == nullptr;
    case Requirement::Op::equals: return value != nullptr && *value == r.values.front();
    case Requirement::Op::not_equals: return value == nullptr || *value != r.values.front();
    case Requirement::Op::in:
      return value != nullptr && std::find(r.values.begin(), r.values.end(), *value) != r.values.end();
    case Requirement::Op::not_in:
      return value == nullptr || std::find(r.values.begin(), r.values.end(), *value) == r.values.end();
  }
  return false;
}

/// The string value of a dotted field of an object, as field selectors compare it.
std::string field_value(const nlohmann::json& obj, const std::string& field) {
  const nlohmann::json* cur = &obj;
  std::size_t start = 0;
  while (start <= field.size()) {
    const auto dot = field.find('.', start);
    const auto part = field.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!cur->is_object() || !cur->contains(part)) return {};
    cur = &(*cur)[part];
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (cur->is_string()) return cur->get<std::string>();
  if (cur->is_number_integer()) return std::to_string(cur->get<long long>());
  if (cur->is_boolean()) return cur->get<bool>() ? "true" : "false";
  return {};
}

bool supported_field(const std::string& field) {
  static const char* const k_fields[] = {"metadata.name", "metadata.namespace", "status.phase", "spec.nodeName",
                                         "type", "reason", "source", "spec.schedulerName", "status.podIP"};
  if (field.rfind("involvedObject.", 0) == 0 || field.rfind("regarding.", 0) == 0) return true;
  return std::find_if(std::begin(k_fields), std::end(k_fields), [&](const char* f) { return field == f; }) !=
         std::end(k_fields);
}

}  // namespace

Expected<LabelSelector> LabelSelector::parse(const std::string& text) {
  LabelSelector s;
  if (trim(text).empty()) return s;
  for (const auto& term : split_terms(text)) {
    if (term.empty()) return selector_error("empty requirement", text);
    auto r = parse_label_term(term);
    if (!r) return r.error();
    s.m_reqs.push_back(std::move(*r));
  }
  return s;
}

bool LabelSelector::matches(const nlohmann::json& labels) const {
  for (const auto& r : m_reqs) {
    const std::string* value = nullptr;
    std::string holder;
    if (labels.is_object()) {
      const auto it = labels.find(r.key);
      if (it != labels.end() && it->is_string()) {
        holder = it->get<std::string>();
        value = &holder;
      }
    }
    if (!match_requirement(r, value)) return false;
  }
  return true;
}

Expected<FieldSelector> FieldSelector::parse(const std::string& text) {
  FieldSelector s;
  if (trim(text).empty()) return s;
  for (const auto& term : split_terms(text)) {
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
    }
    if (at == std::string::npos) {
      return make_error(ErrorCode::usage, "invalid selector: '" + term + "'; can't understand '" + term + "'");
    }
    r.key = trim(term.substr(0, at));
    r.values.push_back(trim(term.substr(at + len)));
    if (!supported_field(r.key)) {
      return make_error(ErrorCode::usage, "field label not supported: " + r.key);
    }
    s.m_reqs.push_back(std::move(r));
  }
  return s;
}

bool FieldSelector::matches(const nlohmann::json& object) const {
  return std::all_of(m_reqs.begin(), m_reqs.end(), [&](const Requirement& r) {
    const auto v = field_value(object, r.key);
    return r.op == Requirement::Op::equals ? v == r.values.front() : v != r.values.front();
  });
}

std::string FieldSelector::required_value(const std::string& field) const {
  for (const auto& r : m_reqs) {
    if (r.key == field && r.op == Requirement::Op::equals) return r.values.front();
  }
  return {};
}

}  // namespace kpt::apiserver
