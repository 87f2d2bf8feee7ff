#pragma once

#include "model/pytorchjob/release.hpp"
#include "util/diagnostic.hpp"
#include "yaml/node.hpp"

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kpt::schema::rules {

/// What the rules check against.
struct RuleOptions {
  model::pytorchjob::Release release =
      model::pytorchjob::k_newest_release;      ///< the operator release the job is meant for
  bool strict = true;                           ///< unknown fields are errors (kubectl --validate=strict)
  std::set<std::string, std::less<>> disabled;  ///< lint ids turned off with --disable
};

/// Every lint id, for --disable and --help. Operator rules cannot be disabled: the operator applies them.
const std::vector<std::string>& lint_ids();
/// True for an id that lint_ids() lists.
bool is_lint_id(std::string_view id);

/// The operator's own validation of a PyTorchJob for `release` (v1.3-v1.7
/// pkg/apis/.../pytorch_validation.go, v1.8+ pkg/webhooks/pytorch/pytorchjob_webhook.go), with the
/// operator's messages and its effect: logged only (v1.3-v1.5), event and job not started
/// (v1.6-v1.7), rejected by the webhook (v1.8+). Rule ids `operator.*`.
Diagnostics check_operator_rules(const yaml::Document& doc, const model::pytorchjob::Release& release);

/// The lints (`lint.*`), disabled ones left out.
Diagnostics check_lints(const yaml::Document& doc, const RuleOptions& opts);

/// Operator rules plus lints for one PyTorchJob document.
Diagnostics check_rules(const yaml::Document& doc, const RuleOptions& opts);

/// Merges the findings of the stages for one document so nothing is said twice:
/// - a misplaced-field lint and the structural unknown-field finding at the same field become one
///   finding (the lint's message and hint, the structural severity);
/// - a release.unknown-field and a schema.unknown-field at one field become the release finding;
/// - an operator finding on a field the schema already rejects is dropped (the API server
///   validates the schema before the operator ever sees the job);
/// then drops disabled lints and sorts by position (stable).
Diagnostics combine_findings(Diagnostics structural, Diagnostics release_fields, Diagnostics rules,
                             const RuleOptions& opts);

}  // namespace kpt::schema::rules
