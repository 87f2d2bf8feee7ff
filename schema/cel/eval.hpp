#pragma once

// Internal to kpt_cel: the tree-walking evaluator behind Program::evaluate.

#include "schema/cel/ast.hpp"
#include "schema/cel/cost.hpp"
#include "schema/cel/value.hpp"

#include <vector>

namespace kpt::cel {

/// cel-go's message when the cost budget runs out (interpreter/runtimecost.go); the API server
/// recognises it by this prefix.
inline constexpr const char* k_cost_limit_message = "operation cancelled: actual cost limit exceeded";

/// Evaluates a checked AST with `slots` holding self, oldSelf and room for macro variables.
/// Errors are values. Once `cost` runs out every node returns the cost error, and so does the
/// whole evaluation (callers test cost.exceeded(): `true || <over budget>` is not true).
Value evaluate_ast(const Ast& ast, std::vector<Value>& slots, CostMeter& cost);

}  // namespace kpt::cel
