#pragma once

// A CEL evaluator for the subset of the language that Kubernetes CRD validation rules
// (x-kubernetes-validations) use. Pure: no I/O, no threads; a Program is immutable and may be
// evaluated from several threads at once.
//
//   auto program = kpt::cel::Program::compile("self.minReplicas <= self.maxReplicas");
//   kpt::cel::RuleResult r = program.evaluate(self);   // r.status: pass, fail, error, ...

#include "schema/cel/compile_error.hpp"
#include "schema/cel/limits.hpp"
#include "schema/cel/value.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kpt::cel {

enum class Status : std::uint8_t {
  pass,         ///< the rule holds
  fail,         ///< the rule evaluated to false
  error,        ///< evaluation failed (no such key, overflow, ...) or the rule is not valid CEL
  cost_limit,   ///< the evaluation ran out of its cost budget
  unsupported,  ///< the rule needs something this evaluator lacks: the caller says "not checked"
  skipped,      ///< a transition rule (it reads oldSelf) with no old object: a create
};

const char* to_string(Status status);

struct RuleResult {
  Status status = Status::pass;
  /// error: the CEL error ("no such key: x", "division by zero", "rule compile error: 1:7:
  /// unexpected ')'"); cost_limit: "operation cancelled: actual cost limit exceeded";
  /// unsupported: what is missing ("function 'quantity'", "bytes literals"); else empty.
  std::string message;
  std::uint64_t cost = 0;  ///< cost units used
};

/// A compiled rule: parsed, names resolved, literal regular expressions compiled. Compiling
/// never fails outright: a rule that does not compile keeps its error, and evaluating it
/// reports that error (or "unsupported") every time.
class Program {
 public:
  static Program compile(std::string_view rule, const Limits& limits = {});

  [[nodiscard]] const std::string& source() const;
  [[nodiscard]] const std::optional<CompileError>& compile_error() const;
  /// True for a transition rule: it reads oldSelf, so it does not apply to a create.
  [[nodiscard]] bool uses_old_self() const;

  /// The fields of self the rule reads, when it reads self only as `self.f` or has(self.f):
  /// a caller binding a large object may bind just these. Nothing when the rule uses self as
  /// a whole (`self == oldSelf`, `self.all(...)`). Escaped names come with their property
  /// (`foo__dash__bar` and `foo-bar`).
  [[nodiscard]] const std::optional<std::vector<std::string>>& self_fields() const;

  /// Evaluates with `self` bound (and `old_self`, nullptr on a create), within the cost limit
  /// given at compile time.
  [[nodiscard]] RuleResult evaluate(const Value& self, const Value* old_self = nullptr) const;
  /// The same with an explicit cost limit, e.g. what is left of a per-object budget.
  [[nodiscard]] RuleResult evaluate(const Value& self, const Value* old_self, std::uint64_t cost_limit) const;

 private:
  struct Impl;
  explicit Program(std::shared_ptr<const Impl> impl) : m_impl(std::move(impl)) {}
  std::shared_ptr<const Impl> m_impl;
};

/// Compiles `rule` and evaluates it with `self` (no oldSelf, default limits). Never throws and
/// never hangs on any input: the entry point for fuzzing.
RuleResult check_and_eval(std::string_view rule, const Value& self) noexcept;

}  // namespace kpt::cel
