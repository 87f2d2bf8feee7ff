#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kpt::plugin {

/// One rule id validate can report: what it checks and what to do about a finding, for SARIF's
/// `tool.driver.rules` and for --disable.
struct RuleInfo {
  std::string_view id;     ///< "schema.type"
  std::string_view brief;  ///< one line: what the rule checks
  std::string_view help;   ///< what to do about a finding
};

/// Every rule id validate (and --server-dry-run) can report, sorted by id.
const std::vector<RuleInfo>& rule_catalog();

/// The catalog's entry for `id`, or null.
const RuleInfo* find_rule(std::string_view id);

/// Every id of the catalog, in its order (for --disable's message and --help).
std::vector<std::string> rule_ids();

}  // namespace kpt::plugin
