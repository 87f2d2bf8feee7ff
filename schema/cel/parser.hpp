#pragma once

#include "schema/cel/ast.hpp"
#include "schema/cel/compile_error.hpp"
#include "schema/cel/limits.hpp"

#include <optional>
#include <string_view>

namespace kpt::cel {

struct ParseResult {
  Ast ast;
  std::optional<CompileError> error;
};

/// Parses a CEL expression (the grammar of cel-spec langdef.md) into an AST, expanding the
/// macros has, all, exists, exists_one, map and filter. Bounded by `limits`: source length,
/// nesting depth (of the AST and of the parser's recursion) and node count.
ParseResult parse(std::string_view source, const Limits& limits = {});

}  // namespace kpt::cel
