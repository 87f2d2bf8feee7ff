#include "schema/rules/lint_checks.hpp"
#include "schema/rules/rules.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace kpt::schema::rules {

namespace {

const std::vector<std::string> k_lint_ids{
    "lint.worker-only-no-master-env",
    "lint.misplaced-field",
    "lint.template-restart-policy",
    "lint.clean-pod-policy-none",
    "lint.zero-workers",
    "lint.long-name",
    "lint.image-placeholder",
    "lint.image-unpinned",
    "lint.nproc-per-node",
    "lint.nproc-rank-is-node-rank",
    "lint.trainjob-name-length",
    "lint.trainjob-no-torchrun",
    "lint.trainjob-nproc-gpus",
    "lint.trainjob-runtime-gpu",
    "lint.trainjob-num-nodes",
    "lint.no-backoff-limit",
    "lint.trainjob-num-proc-per-node",
    "lint.runtime-mpi-num-proc-per-node",
};

bool same_place(const Diagnostic& a, const Diagnostic& b) {
  if (!a.field_path.empty() && a.field_path == b.field_path) return true;
  return a.location.line != 0 && a.location.line == b.location.line && a.location.col == b.location.col;
}

int rank(Severity s) {
  switch (s) {
    case Severity::error:
      return 0;
    case Severity::warning:
      return 1;
    case Severity::info:
      break;
  }
  return 2;
}

enum class Take { theirs, graver };

/// Folds each finding of `from` with rule `rule` into the first finding of `into` with rule
/// `target_rule` at the same place: `into` keeps its text; its severity becomes the folded
/// finding's (Take::theirs) or the graver of the two (Take::graver).
void fold(Diagnostics& into, const std::string& target_rule, Diagnostics& from, const std::string& rule,
          Take take) {
  for (auto& f : into) {
    if (f.rule_id != target_rule) continue;
    auto it = std::find_if(from.begin(), from.end(),
                           [&](const Diagnostic& d) { return d.rule_id == rule && same_place(d, f); });
    if (it == from.end()) continue;
    if (take == Take::theirs || rank(it->severity) < rank(f.severity)) f.severity = it->severity;
    from.erase(it);
  }
}

}  // namespace

const std::vector<std::string>& lint_ids() { return k_lint_ids; }

bool is_lint_id(std::string_view id) {
  return std::find(k_lint_ids.begin(), k_lint_ids.end(), id) != k_lint_ids.end();
}

Diagnostics check_lints(const yaml::Document& doc, const RuleOptions& opts) {
  Diagnostics out = check_misplaced_fields(doc, opts);
  auto jobs = check_job_lints(doc, opts);
  auto images = check_image_lint(doc);
  out.insert(out.end(), std::make_move_iterator(jobs.begin()), std::make_move_iterator(jobs.end()));
  out.insert(out.end(), std::make_move_iterator(images.begin()), std::make_move_iterator(images.end()));
  std::erase_if(out, [&](const Diagnostic& d) { return opts.disabled.count(d.rule_id) != 0; });
  return out;
}

Diagnostics check_rules(const yaml::Document& doc, const RuleOptions& opts) {
  Diagnostics out = check_operator_rules(doc, opts.release);
  auto lints = check_lints(doc, opts);
  out.insert(out.end(), std::make_move_iterator(lints.begin()), std::make_move_iterator(lints.end()));
  return out;
}

Diagnostics combine_findings(Diagnostics structural, Diagnostics release_fields, Diagnostics rules,
                             const RuleOptions& opts) {
  // The misplaced-field lint replaces the plain unknown-field finding; its severity is the
  // schema's (error under strict unknown fields, warning without).
  fold(rules, "lint.misplaced-field", structural, "schema.unknown-field", Take::theirs);
  fold(release_fields, "release.unknown-field", structural, "schema.unknown-field", Take::graver);
  std::erase_if(rules, [&](const Diagnostic& r) {
    if (r.rule_id.rfind("operator.", 0) != 0) return false;
    return std::any_of(structural.begin(), structural.end(), [&](const Diagnostic& s) {
      return s.severity == Severity::error && !s.field_path.empty() && s.field_path == r.field_path;
    });
  });
  Diagnostics out = std::move(structural);
  out.reserve(out.size() + release_fields.size() + rules.size());
  for (auto* part : {&release_fields, &rules}) {
    out.insert(out.end(), std::make_move_iterator(part->begin()), std::make_move_iterator(part->end()));
  }
  std::erase_if(out, [&](const Diagnostic& d) { return opts.disabled.count(d.rule_id) != 0; });
  std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
    if (a.location.line != b.location.line) return a.location.line < b.location.line;
    return a.location.col < b.location.col;
  });
  return out;
}

}  // namespace kpt::schema::rules
