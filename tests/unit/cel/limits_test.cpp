// Hostile rules and inputs end quickly with a distinct result: the cost limit, or a compile
// limit reported as unsupported. No test here measures time; each would hang or exhaust memory
// without the bound it checks.

#include "tests/unit/cel/cel_test_support.hpp"

#include <gtest/gtest.h>

namespace kpt::cel {
namespace {

using namespace kpt::cel::testing;

Value numbers(int n) {
  std::vector<Value> items;
  for (int i = 0; i < n; ++i) items.push_back(num(i));
  return list(std::move(items));
}

const Expect k_cost = {Status::cost_limit, "operation cancelled: actual cost limit exceeded"};

TEST(CelLimits, NestedMacrosOverLargeListsHitTheCostLimit) {
  const Value big = numbers(1000);
  run_cases({
      {"self.all(x, self.all(y, self.all(z, true)))", k_cost, big},
      {"self.exists(x, self.exists(y, x + y < 0))", k_cost, big},
      {"self.map(x, self.map(y, self)).size() > 0", k_cost, big},
      {"self.filter(x, self.exists_one(y, y == x)).size() == 1000", k_cost, big},
  });
}

TEST(CelLimits, CostLimitIsNotAbsorbedByLogicalOperators) {
  const Value big = numbers(1000);
  run_cases({
      {"true || self.all(x, self.all(y, true))", pass(), big},  // short-circuit: never evaluated
      {"self.all(x, self.all(y, true)) || true", k_cost, big},
      {"false && self.exists(x, self.exists(y, true))", fail(), big},
      {"self.exists(x, self.exists(y, false)) && false", k_cost, big},
  });
}

TEST(CelLimits, GrowingStringsHitTheCostLimit) {
  // Each level doubles the strings of the one before: the cost of concatenation stops it.
  std::string rule = "[self]";
  for (int i = 0; i < 30; ++i) rule = rule + ".map(s, s + s)";
  run_cases({
      {rule + ".size() == 1", k_cost, str(std::string(1000, 'a'))},
      {"self.map(x, self.join(',')).join(',').size() > 0", k_cost,
       list(std::vector<Value>(2000, str("abcdefghij")))},
      {"self.replace('a', self).replace('a', self).size() > 0", k_cost, str(std::string(5000, 'a'))},
      {"self.split('').map(c, self + self).size() > 0", k_cost, str(std::string(3000, 'a'))},
  });
}

TEST(CelLimits, RegexWorkIsChargedBeforeItRuns) {
  const std::string text(1'000'000, 'a');
  run_cases({
      {"self.matches('(a|a)*(b|b)*(c|c)*(d|d)*(e|e)*(f|f)*(g|g)*x')", k_cost, str(text)},
      {"self.matches('^a+$')", pass(), str(std::string(100'000, 'a'))},
      {"self.exists(s, s.matches('^y(abcdefghijklmnopqrstuvwxyz){1,10}'))", k_cost,
       list(std::vector<Value>(200, str(std::string(20000, 'x'))))},
  });
}

TEST(CelLimits, CostIsReportedAndAnExplicitBudgetApplies) {
  const Program p = Program::compile("self.all(x, x >= 0)");
  const Value small = numbers(10);
  const RuleResult ok = p.evaluate(small);
  EXPECT_EQ(ok.status, Status::pass);
  EXPECT_GT(ok.cost, 10u);
  EXPECT_LT(ok.cost, 100u);
  const RuleResult tight = p.evaluate(small, nullptr, ok.cost - 1);
  EXPECT_EQ(tight.status, Status::cost_limit);
  EXPECT_EQ(tight.cost, ok.cost - 1);
  EXPECT_EQ(p.evaluate(small, nullptr, ok.cost).status, Status::pass);
}

TEST(CelLimits, CompileLimitsComeFromLimits) {
  Limits limits;
  limits.cost_limit = 5;
  const Program p = Program::compile("[1, 2, 3, 4, 5, 6].size() == 6", limits);
  expect_result(p.evaluate(Value()), k_cost);
  limits.max_nodes = 3;
  expect_result(Program::compile("1 + 2 == 3", limits).evaluate(Value()),
                unsupported("expression has more than 3 nodes"));
}

TEST(CelLimits, DeepAndLongRulesAreRefusedAtCompileTime) {
  std::string deep_list;
  for (int i = 0; i < 5000; ++i) deep_list += "[";
  std::string deep_calls;
  for (int i = 0; i < 2000; ++i) deep_calls += "size(";
  run_cases({
      {std::string(5000, '(') + "true" + std::string(5000, ')'),
       unsupported("expression nesting exceeds 100 levels")},
      {deep_list, unsupported("expression nesting exceeds 100 levels")},
      {deep_calls, unsupported("expression nesting exceeds 100 levels")},
      {std::string(5000, '-') + "1 == 1", unsupported("expression nesting exceeds 100 levels")},
      {std::string(20000, ' ') + "true", unsupported("expression is longer than 10240 bytes")},
  });
}

TEST(CelLimits, DeepValuesCompareWithoutTrouble) {
  Value deep = num(1);
  for (int i = 0; i < 200; ++i) deep = list({deep});
  run_cases({
      {"self == self && [self] != [1]", pass(), deep},
  });
}

}  // namespace
}  // namespace kpt::cel
