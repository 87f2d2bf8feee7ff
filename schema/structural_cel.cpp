#include "schema/structural_cel.hpp"

#include "schema/cel_binding.hpp"
#include "util/strings.hpp"

#include <algorithm>

namespace kpt::schema {
namespace {

/// The API server's per-call limit (k8s.io/apiserver/pkg/apis/cel PerCallLimit).
constexpr std::uint64_t k_per_call_limit = 1'000'000;

/// How the API server names a rule in its messages: the message when there is one, else the
/// rule (apiextensions validation.go ruleErrorString).
std::string rule_error_string(const CelRule& rule) {
  return std::string(util::trim(rule.message.empty() ? rule.rule : rule.message));
}

std::string display_path(const std::string& path) { return path.empty() ? std::string("<root>") : path; }

/// Why a rule is not checked, from the result of evaluating it.
std::string not_checked_reason(const CelRule& rule, const cel::RuleResult& result) {
  const auto& error = rule.program->compile_error();
  if (result.status != cel::Status::unsupported || (error && error->kind == cel::CompileErrorKind::limit)) {
    return result.message;
  }
  return "unsupported " + result.message;
}

/// The node a rule's fieldPath (".spec.replicas", ".labels['a.b']") names under `value`, and
/// its field path; as far as the path resolves.
std::pair<const yaml::Node*, std::string> resolve_field_path(const yaml::Node& value, const std::string& path,
                                                             std::string_view field_path) {
  const yaml::Node* node = &value;
  std::string at = path;
  while (!field_path.empty()) {
    std::string key;
    if (field_path.front() == '.') {
      field_path.remove_prefix(1);
      const auto end = std::min(field_path.find_first_of(".["), field_path.size());
      key = std::string(field_path.substr(0, end));
      field_path.remove_prefix(end);
    } else if (field_path.substr(0, 2) == "['" && field_path.find("']") != std::string_view::npos) {
      const auto end = field_path.find("']");
      key = std::string(field_path.substr(2, end - 2));
      field_path.remove_prefix(end + 2);
    } else {
      break;
    }
    at = child_path(at, key);
    const yaml::Node* next = node->find(key);
    if (next == nullptr) break;
    node = next;
  }
  return {node, at};
}

}  // namespace

void compile_cel_rule(CelRule& rule) {
  rule.program = std::make_shared<const cel::Program>(cel::Program::compile(rule.rule));
}

void CelValidator::check(const yaml::Node& value, const StructuralSchema& schema, const std::string& path,
                         bool resource_root) {
  std::optional<cel::Value> whole;  // self, bound once for the rules that use all of it
  for (const auto& rule : schema.validations) {
    if (m_stopped || m_sink.full() || rule.program == nullptr) return;
    evaluate(rule, value, schema, path, resource_root, whole);
  }
}

void CelValidator::evaluate(const CelRule& rule, const yaml::Node& value, const StructuralSchema& schema,
                            const std::string& path, bool resource_root, std::optional<cel::Value>& whole) {
  const cel::Program& program = *rule.program;
  if (program.compile_error()) return report(rule, program.evaluate(cel::Value()), value, path);
  if (program.uses_old_self()) {
    if (rule.optional_old_self) {
      return not_checked(rule, value, path, "unsupported optionalOldSelf (oldSelf as an optional on create)");
    }
    m_transition_rules.push_back(display_path(path) + ": " + util::quote(rule.rule, 120));
    return;
  }
  cel::Value self;
  if (const auto& fields = program.self_fields(); fields) {
    self = to_cel_value(value, schema, resource_root, &*fields);
  } else {
    if (!whole) whole = to_cel_value(value, schema, resource_root);
    self = *whole;
  }
  const std::uint64_t limit = std::min(k_per_call_limit, m_budget);
  const cel::RuleResult result = program.evaluate(self, nullptr, limit);
  m_budget -= std::min(m_budget, result.cost);
  if (result.status == cel::Status::cost_limit && limit < k_per_call_limit) {
    return stop(
        value, path,
        "validation failed due to running out of cost budget, no further validation rules will be run");
  }
  report(rule, result, value, path);
}

void CelValidator::report(const CelRule& rule, const cel::RuleResult& result, const yaml::Node& value,
                          const std::string& path) {
  switch (result.status) {
    case cel::Status::pass:
    case cel::Status::skipped:
      return;
    case cel::Status::fail: {
      const auto [node, at] = resolve_field_path(value, path, rule.field_path);
      std::string message = rule.message.empty() ? "failed rule: " + std::string(util::trim(rule.rule))
                                                 : std::string(util::trim(rule.message));
      return m_sink.error(node->pos, at, "schema.cel", std::move(message));
    }
    case cel::Status::error:
      if (rule.program->compile_error()) return not_checked(rule, value, path, result.message);
      return m_sink.error(value.pos, path, "schema.cel",
                          result.message + " evaluating rule: " + rule_error_string(rule));
    case cel::Status::cost_limit:
      return stop(value, path,
                  "'" + result.message +
                      "': no further validation rules will be run due to call cost exceeds limit for rule: " +
                      rule_error_string(rule));
    case cel::Status::unsupported:
      return not_checked(rule, value, path, not_checked_reason(rule, result));
  }
}

void CelValidator::not_checked(const CelRule& rule, const yaml::Node& value, const std::string& path,
                               const std::string& reason) {
  m_sink.add(Severity::warning, value.pos, path, "schema.cel-not-checked",
             "x-kubernetes-validations rule " + util::quote(rule.rule, 120) + " not checked: " + reason);
}

void CelValidator::stop(const yaml::Node& value, const std::string& path, std::string message) {
  m_stopped = true;
  m_sink.error(value.pos, path, "schema.cel", std::move(message));
}

void CelValidator::finish() {
  if (m_transition_rules.empty()) return;
  constexpr std::size_t k_listed = 5;  // a rule inside a long list would repeat once per item
  const std::size_t n = m_transition_rules.size();
  std::vector<std::string> listed(
      m_transition_rules.begin(),
      m_transition_rules.begin() + static_cast<std::ptrdiff_t>(std::min(n, k_listed)));
  if (n > k_listed) listed.push_back("and " + std::to_string(n - k_listed) + " more");
  std::string message =
      std::to_string(n) + " transition rule" + (n == 1 ? "" : "s") + " (oldSelf) not evaluated " +
      (m_opts.is_create ? "on create: " : "without the old object: ") + util::join(listed, "; ");
  m_sink.add(Severity::info, m_sink.doc().root.pos, "", "schema.cel-transition", std::move(message),
             "rules that compare with oldSelf apply to updates, not to a create");
}

}  // namespace kpt::schema
