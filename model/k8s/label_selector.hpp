#pragma once

#include "util/expected.hpp"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace kpt::model::k8s {

/// A label selector in kubectl's text form, its equality and existence terms ("a=b", "a==b", "a!=b",
/// "a", "!a", comma-separated, all must hold): what `--job-selector` takes. Set terms (in, notin)
/// are not supported.
class LabelSelector {
 public:
  /// The empty selector, which matches everything.
  LabelSelector() = default;
  /// Parses `text`; an error names the term it cannot read.
  static Expected<LabelSelector> parse(std::string_view text);

  /// Whether the labels of `object` (metadata.labels, missing or malformed: none) satisfy every term.
  [[nodiscard]] bool matches(const nlohmann::json& object) const;
  [[nodiscard]] bool empty() const { return m_terms.empty(); }
  /// The selector in canonical text form ("a=b,!c"), as the API server's labelSelector parameter takes it.
  [[nodiscard]] std::string to_string() const;
  /// False when no set of labels can satisfy both selectors ("a=b" and "a=c", "a" and "!a"): two
  /// controllers whose selectors are disjoint never reconcile the same job.
  [[nodiscard]] bool may_overlap(const LabelSelector& other) const;

 private:
  enum class Op { equals, not_equals, exists, not_exists };
  struct Term {
    std::string key;
    Op op;
    std::string value;
  };
  static bool contradict(const Term& a, const Term& b);
  std::vector<Term> m_terms;
};

}  // namespace kpt::model::k8s
