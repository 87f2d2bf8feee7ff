#include "apiserver/selectors.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace kpt::apiserver {

namespace {

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
  static const char* const k_fields[] = {
      "metadata.name", "metadata.namespace", "status.phase", "spec.nodeName", "type", "reason",
      "source",        "spec.schedulerName", "status.podIP"};
  if (field.rfind("involvedObject.", 0) == 0 || field.rfind("regarding.", 0) == 0) return true;
  return std::find_if(std::begin(k_fields), std::end(k_fields), [&](const char* f) { return field == f; }) !=
         std::end(k_fields);
}

}  // namespace

Expected<LabelSelector> LabelSelector::parse(const std::string& text) {
  auto reqs = util::parse_label_selector(text);
  if (!reqs) return reqs.error();
  LabelSelector s;
  s.m_reqs = std::move(*reqs);
  return s;
}

bool LabelSelector::matches(const nlohmann::json& labels) const {
  std::string holder;
  return util::selector_matches(m_reqs, [&](const std::string& key) -> const std::string* {
    if (!labels.is_object()) return nullptr;
    const auto it = labels.find(key);
    if (it == labels.end() || !it->is_string()) return nullptr;
    holder = it->get<std::string>();
    return &holder;
  });
}

Expected<FieldSelector> FieldSelector::parse(const std::string& text) {
  auto reqs = util::parse_field_selector(text);
  if (!reqs) return reqs.error();
  for (const auto& r : *reqs) {
    if (!supported_field(r.key)) return make_error(ErrorCode::usage, "field label not supported: " + r.key);
  }
  FieldSelector s;
  s.m_reqs = std::move(*reqs);
  return s;
}

bool FieldSelector::matches(const nlohmann::json& object) const {
  return std::all_of(m_reqs.begin(), m_reqs.end(), [&](const util::Requirement& r) {
    const auto v = field_value(object, r.key);
    return r.op == util::Requirement::Op::equals ? v == r.values.front() : v != r.values.front();
  });
}

}  // namespace kpt::apiserver
