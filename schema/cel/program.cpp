#include "schema/cel/cel.hpp"
#include "schema/cel/checker.hpp"
#include "schema/cel/eval.hpp"
#include "schema/cel/parser.hpp"

#include <vector>

namespace kpt::cel {

struct Program::Impl {
  std::string source;
  Ast ast;
  std::optional<CompileError> error;
  bool uses_old_self = false;
  std::uint16_t slots = k_first_macro_slot;
  std::uint64_t cost_limit = 0;
  std::optional<std::vector<std::string>> self_fields;
};

namespace {

RuleResult compile_failure(const std::string& source, const CompileError& error) {
  RuleResult out;
  const bool ours = error.kind == CompileErrorKind::unsupported || error.kind == CompileErrorKind::limit;
  out.status = ours ? Status::unsupported : Status::error;
  out.message = ours ? error.message : "rule compile error: " + format_compile_error(source, error);
  return out;
}

RuleResult outcome(const Value& v) {
  RuleResult out;
  if (v.kind() == Kind::boolean) {
    out.status = v.as_bool() ? Status::pass : Status::fail;
  } else if (v.is_error()) {
    out.status = v.error_kind() == ErrorKind::unsupported ? Status::unsupported : Status::error;
    out.message = std::string(v.as_string());
  } else {
    out.status = Status::error;
    out.message = "cel expression must evaluate to a bool, got '" + std::string(v.type_name()) + "'";
  }
  return out;
}

}  // namespace

const char* to_string(Status status) {
  switch (status) {
    case Status::pass:
      return "pass";
    case Status::fail:
      return "fail";
    case Status::error:
      return "error";
    case Status::cost_limit:
      return "cost_limit";
    case Status::unsupported:
      return "unsupported";
    case Status::skipped:
      return "skipped";
  }
  return "unknown";
}

Program Program::compile(std::string_view rule, const Limits& limits) {
  auto impl = std::make_shared<Impl>();
  impl->source = std::string(rule);
  impl->cost_limit = limits.cost_limit;
  ParseResult parsed = parse(impl->source, limits);
  impl->ast = std::move(parsed.ast);
  impl->error = std::move(parsed.error);
  if (!impl->error) {
    CheckResult checked = check(impl->ast);
    impl->error = std::move(checked.error);
    impl->uses_old_self = checked.uses_old_self;
    impl->slots = checked.slots;
    if (!checked.self_whole) impl->self_fields = std::move(checked.self_fields);
  }
  return Program(std::move(impl));
}

const std::string& Program::source() const { return m_impl->source; }
const std::optional<CompileError>& Program::compile_error() const { return m_impl->error; }
bool Program::uses_old_self() const { return m_impl->uses_old_self; }
const std::optional<std::vector<std::string>>& Program::self_fields() const { return m_impl->self_fields; }

RuleResult Program::evaluate(const Value& self, const Value* old_self) const {
  return evaluate(self, old_self, m_impl->cost_limit);
}

RuleResult Program::evaluate(const Value& self, const Value* old_self, std::uint64_t cost_limit) const {
  if (m_impl->error) return compile_failure(m_impl->source, *m_impl->error);
  if (m_impl->uses_old_self && old_self == nullptr) {
    return RuleResult{Status::skipped, "transition rule (oldSelf) not evaluated on create", 0};
  }
  std::vector<Value> slots;
  slots.reserve(m_impl->slots);
  slots.push_back(self);                                       // k_self_slot
  slots.push_back(old_self != nullptr ? *old_self : Value());  // k_old_self_slot
  slots.resize(m_impl->slots);
  CostMeter cost(cost_limit);
  const Value result = evaluate_ast(m_impl->ast, slots, cost);
  RuleResult out =
      cost.exceeded() ? RuleResult{Status::cost_limit, k_cost_limit_message, 0} : outcome(result);
  out.cost = cost.used();
  return out;
}

RuleResult check_and_eval(std::string_view rule, const Value& self) noexcept {
  return Program::compile(rule).evaluate(self);
}

}  // namespace kpt::cel
