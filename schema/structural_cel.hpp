#pragma once

#include "schema/cel/cel.hpp"
#include "schema/structural_findings.hpp"
#include "schema/structural_schema.hpp"
#include "schema/structural_schema_impl.hpp"
#include "yaml/node.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace kpt::schema {

/// The x-kubernetes-validations rules of one document, evaluated as the API server evaluates
/// them on create (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go), with
/// the API server's messages. Findings (all rule id `schema.cel`, except where noted):
///   - a rule that evaluates to false: an error at the node, with the rule's message or
///     "failed rule: <rule>" (at the node `fieldPath` names, when the rule has one);
///   - a rule that fails to evaluate: "<error> evaluating rule: <rule>";
///   - a rule over the per-call cost limit, or the document over its total budget: the API
///     server's error, and no further rule of the document runs;
///   - a rule this evaluator cannot check: a warning `schema.cel-not-checked` naming it;
///   - transition rules (they read oldSelf), which do not apply to a create: one info
///     `schema.cel-transition` listing them.
class CelValidator {
 public:
  CelValidator(FindingSink& sink, const StructuralOptions& opts) : m_sink(sink), m_opts(opts) {}

  /// Evaluates the rules of `schema` with `self` = `value`, a present, non-null value whose
  /// type the validator has checked. `resource_root` for the document and embedded resources.
  void check(const yaml::Node& value, const StructuralSchema& schema, const std::string& path,
             bool resource_root);

  /// Reports what check() set aside for the whole document.
  void finish();

 private:
  void evaluate(const CelRule& rule, const yaml::Node& value, const StructuralSchema& schema,
                const std::string& path, bool resource_root, std::optional<cel::Value>& whole);
  void report(const CelRule& rule, const cel::RuleResult& result, const yaml::Node& value,
              const std::string& path);
  void not_checked(const CelRule& rule, const yaml::Node& value, const std::string& path,
                   const std::string& reason);
  void stop(const yaml::Node& value, const std::string& path, std::string message);

  FindingSink& m_sink;
  const StructuralOptions& m_opts;
  /// What is left of the API server's budget for one object (k8s.io/apiserver/pkg/apis/cel
  /// RuntimeCELCostBudget = 10,000,000).
  std::uint64_t m_budget = 10'000'000;
  bool m_stopped = false;
  std::vector<std::string> m_transition_rules;  ///< "path: 'rule'", for the one info finding
};

}  // namespace kpt::schema
