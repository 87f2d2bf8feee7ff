#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kpt::cel {

/// Why a rule could not be compiled. `unsupported` means the rule may well be valid CEL but
/// uses something this evaluator does not implement: the caller reports "not checked".
enum class CompileErrorKind : std::uint8_t {
  syntax,       ///< not CEL: bad token, unbalanced parenthesis, reserved identifier, ...
  undeclared,   ///< a name no Kubernetes rule can refer to
  unsupported,  ///< valid CEL this evaluator does not implement (a function, bytes, ...)
  limit,        ///< longer, deeper or larger than the evaluator's bounds
};

struct CompileError {
  CompileErrorKind kind = CompileErrorKind::syntax;
  std::uint32_t offset = 0;  ///< byte offset in the rule
  std::string message;       ///< e.g. "unexpected ')'", "function 'quantity'"
};

/// "1:7: unexpected ')'": the 1-based line and column (in characters) of the offset, then the
/// message. Rules are usually one line, but a YAML block scalar can hold several.
std::string format_compile_error(std::string_view source, const CompileError& error);

}  // namespace kpt::cel
