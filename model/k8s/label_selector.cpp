#include "model/k8s/label_selector.hpp"

#include "util/json_access.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

namespace kpt::model::k8s {

namespace {

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

Expected<LabelSelector> LabelSelector::parse(std::string_view text) {
  LabelSelector out;
  if (trimmed(text).empty()) return out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = std::min(text.find(',', start), text.size());
    const std::string_view raw = trimmed(text.substr(start, end - start));
    start = end + 1;
    Term t;
    if (const auto ne = raw.find("!="); ne != std::string_view::npos) {
      t = {std::string(trimmed(raw.substr(0, ne))), Op::not_equals, std::string(trimmed(raw.substr(ne + 2)))};
    } else if (const auto eq = raw.find('='); eq != std::string_view::npos) {
      const std::size_t width = raw.substr(eq, 2) == "==" ? 2 : 1;
      t = {std::string(trimmed(raw.substr(0, eq))), Op::equals, std::string(trimmed(raw.substr(eq + width)))};
    } else if (!raw.empty() && raw.front() == '!') {
      t = {std::string(trimmed(raw.substr(1))), Op::not_exists, ""};
    } else {
      t = {std::string(raw), Op::exists, ""};
    }
    const bool bad_key = t.key.empty() || t.key.find_first_of(" !=()") != std::string::npos;
    if (bad_key || t.value.find_first_of(" !=()") != std::string::npos)
      return make_error(ErrorCode::usage, "cannot read the selector term " + util::quote(std::string(raw)) +
                                              ": use key=value, key!=value, key or !key");
    out.m_terms.push_back(std::move(t));
  }
  return out;
}

bool LabelSelector::matches(const nlohmann::json& object) const {
  const nlohmann::json& labels = util::object_at(object, "metadata.labels");
  for (const auto& t : m_terms) {
    const auto value = util::optional_string(labels, t.key);
    switch (t.op) {
      case Op::equals:
        if (!value || *value != t.value) return false;
        break;
      case Op::not_equals:
        if (value && *value == t.value) return false;
        break;
      case Op::exists:
        if (!value) return false;
        break;
      case Op::not_exists:
        if (value) return false;
        break;
    }
  }
  return true;
}

std::string LabelSelector::to_string() const {
  std::vector<std::string> parts;
  for (const auto& t : m_terms) {
    switch (t.op) {
      case Op::equals:
        parts.push_back(t.key + "=" + t.value);
        break;
      case Op::not_equals:
        parts.push_back(t.key + "!=" + t.value);
        break;
      case Op::exists:
        parts.push_back(t.key);
        break;
      case Op::not_exists:
        parts.push_back("!" + t.key);
        break;
    }
  }
  return util::join(parts, ",");
}

bool LabelSelector::contradict(const Term& a, const Term& b) {
  if (a.key != b.key) return false;
  const auto needs_value = [](Op op) { return op == Op::equals || op == Op::exists; };
  if ((a.op == Op::not_exists && needs_value(b.op)) || (b.op == Op::not_exists && needs_value(a.op)))
    return true;
  if (a.op == Op::equals && b.op == Op::equals) return a.value != b.value;
  if (a.op == Op::equals && b.op == Op::not_equals) return a.value == b.value;
  if (a.op == Op::not_equals && b.op == Op::equals) return a.value == b.value;
  return false;
}

bool LabelSelector::may_overlap(const LabelSelector& other) const {
  for (const auto& a : m_terms) {
    for (const auto& b : other.m_terms) {
      if (contradict(a, b)) return false;
    }
  }
  return true;
}

}  // namespace kpt::model::k8s
