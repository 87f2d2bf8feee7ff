#pragma once

#include "schema/cel/ast.hpp"
#include "schema/cel/compile_error.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kpt::cel {

/// Variable slots: `self`, `oldSelf`, then one per nested macro variable.
constexpr std::uint16_t k_self_slot = 0;
constexpr std::uint16_t k_old_self_slot = 1;
constexpr std::uint16_t k_first_macro_slot = 2;

struct CheckResult {
  std::optional<CompileError> error;
  bool uses_old_self = false;                ///< a transition rule
  std::uint16_t slots = k_first_macro_slot;  ///< variable slots evaluation needs
  bool self_whole = false;                   ///< self is used other than as `self.f` / has(self.f)
  std::vector<std::string> self_fields;      ///< the f of each `self.f` (also unescaped)
};

/// Resolves names in a parsed rule: variables to slots (`self`, `oldSelf`, macro variables),
/// type names (`int`, `string`, ...) to type values, calls to builtins. Literal patterns of
/// matches() are compiled here, once. A function this evaluator lacks is `unsupported`; any
/// other name is `undeclared`, as only self and oldSelf exist in a CRD rule.
CheckResult check(Ast& ast);

}  // namespace kpt::cel
