#include "tests/unit/cel/cel_test_support.hpp"

#include <gtest/gtest.h>

namespace kpt::cel {
namespace {

using namespace kpt::cel::testing;

TEST(CelEval, LiteralsAndArithmetic) {
  run_cases({
      {"true", pass()},
      {"false", fail()},
      {"1 + 2 == 3", pass()},
      {"7 / 2 == 3 && 7 % 2 == 1", pass()},
      {"-7 / 2 == -3 && -7 % 2 == -1", pass()},
      {"2 * 3 - 1 == 5", pass()},
      {"1 + 2 * 3 == 7", pass()},
      {"(1 + 2) * 3 == 9", pass()},
      {"10u - 3u == 7u", pass()},
      {"5u / 2u == 2u && 5u % 2u == 1u", pass()},
      {"0x1F == 31 && 0xffu == 255u", pass()},
      {"1.5 + 1.5 == 3.0", pass()},
      {"1.0 / 0.0 > 1e308", pass()},
      {"7.0 / 2.0 == 3.5", pass()},
      {".5 == 0.5 && 1e3 == 1000.0 && 2.5e-1 == 0.25", pass()},
      {"-9223372036854775808 < 0", pass()},
      {"--5 == 5", pass()},
      {"-(5) == -5", pass()},
      {"-1.5 < 0.0", pass()},
      {"null == null", pass()},
  });
}

TEST(CelEval, ArithmeticErrors) {
  run_cases({
      {"1 / 0 == 0", error("division by zero")},
      {"1 % 0 == 0", error("modulus by zero")},
      {"1u / 0u == 0u", error("division by zero")},
      {"1u % 0u == 0u", error("modulus by zero")},
      {"9223372036854775807 + 1 > 0", error("integer overflow")},
      {"-9223372036854775808 - 1 < 0", error("integer overflow")},
      {"9223372036854775807 * 2 > 0", error("integer overflow")},
      {"-9223372036854775808 / -1 > 0", error("integer overflow")},
      {"-9223372036854775808 % -1 == 0", error("integer overflow")},
      {"-(-9223372036854775808) > 0", error("integer overflow")},
      {"0u - 1u > 0u", error("unsigned integer overflow")},
      {"18446744073709551615u + 1u > 0u", error("unsigned integer overflow")},
      {"1 + 'a' == 'b'", error("no matching overload for '_+_' applied to '(int, string)'")},
      {"1 + 1u == 2", error("no matching overload for '_+_' applied to '(int, uint)'")},
      {"1.5 % 1.0 == 0.5", error("no matching overload for '_%_' applied to '(double, double)'")},
      {"-'a' == 'a'", error("no matching overload for '-_' applied to '(string)'")},
      {"-1u == 1u", error("no matching overload for '-_' applied to '(uint)'")},
      {"!1", error("no matching overload for '!_' applied to '(int)'")},
      {"{'a': 1} + {'b': 2} == {}", error("no matching overload for '_+_' applied to '(map, map)'")},
  });
}

TEST(CelEval, HeterogeneousEqualityAndOrdering) {
  run_cases({
      {"1 == 1.0", pass()},
      {"1 == 1u", pass()},
      {"1u == 1.0", pass()},
      {"1 != 1.5", pass()},
      {"1 == '1'", fail()},
      {"'a' == 'a' && 'a' != 'b'", pass()},
      {"[1, 2] == [1, 2.0]", pass()},
      {"[1, 2] == [2, 1]", fail()},
      {"[1] == ['1']", fail()},
      {"{'a': 1, 'b': [2]} == {'b': [2.0], 'a': 1u}", pass()},
      {"{'a': 1} == {'a': 2}", fail()},
      {"{1: 'x'} == {1u: 'x'}", pass()},
      {"null == 0", fail()},
      {"true == 1", fail()},
      {"1 < 2 && 2 <= 2 && 3 > 2 && 3 >= 3", pass()},
      {"1 < 1.5 && 2u > 1 && -1 < 0u && 1.5 < 2u", pass()},
      {"9223372036854775807 < 9223372036854775808u", pass()},
      {"9223372036854775807 < 9223372036854775808.0", pass()},
      {"'abc' < 'abd' && 'b' > 'abc' && '' < 'a'", pass()},
      {"false < true", pass()},
      {"'a' < 1", error("no matching overload for '_<_' applied to '(string, int)'")},
      {"[1] < [2]", error("no matching overload for '_<_' applied to '(list, list)'")},
      {"0.0 / 0.0 < 1.0", error("NaN values cannot be ordered")},
      {"0.0 / 0.0 == 0.0 / 0.0", fail()},
      {"type(1) == int && type('a') == string && type(1u) == uint && type(1.0) == double", pass()},
      {"type([]) == list && type({}) == map && type(null) == null_type && type(true) == bool", pass()},
      {"type(int) == type", pass()},
      {"type(1) == string", fail()},
  });
}

TEST(CelEval, LogicalOperatorsAreCommutativeOverErrors) {
  run_cases({
      {"false && (1 / 0 == 0)", fail()},
      {"(1 / 0 == 0) && false", fail()},
      {"true || (1 / 0 == 0)", pass()},
      {"(1 / 0 == 0) || true", pass()},
      {"true && (1 / 0 == 0)", error("division by zero")},
      {"(1 / 0 == 0) && true", error("division by zero")},
      {"false || (1 % 0 == 0)", error("modulus by zero")},
      {"(1 / 0 == 0) || (1 % 0 == 0)", error("division by zero")},
      {"1 && false", fail()},
      {"1 || true", pass()},
      {"1 && true", error("no matching overload for '_&&_' applied to '(int, bool)'")},
      {"false || 'x'", error("no matching overload for '_||_' applied to '(bool, string)'")},
      {"!true == false && !!true", pass()},
      {"true ? 1 == 1 : 1 / 0 == 0", pass()},
      {"false ? 1 / 0 == 0 : 2 == 2", pass()},
      {"1 ? true : false", error("no matching overload for '_?_:_' applied to '(int)'")},
      {"(1 / 0 == 0) ? true : false", error("division by zero")},
      {"false ? 1 == 2 : true ? 2 == 2 : false", pass()},
      {"true ? false ? 1 == 2 : 2 == 2 : false",
       error("rule compile error: 1:14: expected ':' but found '?'")},
  });
}

TEST(CelEval, ListsMapsSelectionAndIndexing) {
  const Value self = obj({{"name", str("job")},
                          {"replicas", num(3)},
                          {"labels", obj({{"app", str("x")}})},
                          {"ports", list({num(80), num(443)})},
                          {"foo-bar", num(1)},
                          {"namespace", str("ns")}});
  run_cases({
      {"self.name == 'job'", pass(), self},
      {"self.replicas >= 1", pass(), self},
      {"self.labels.app == 'x'", pass(), self},
      {"self['labels']['app'] == 'x'", pass(), self},
      {"self.ports[1] == 443", pass(), self},
      {"self.ports[1u] == 443 && self.ports[0.0] == 80", pass(), self},
      {"self.ports[2] == 0", error("index '2' out of range in list size '2'"), self},
      {"self.ports[-1] == 0", error("index '-1' out of range in list size '2'"), self},
      {"self.ports[0.5] == 0", error("unsupported index value 0.5 in list"), self},
      {"self.ports['a'] == 0", error("no matching overload for '_[_]' applied to '(list, string)'"), self},
      {"self.missing == 1", error("no such key: missing"), self},
      {"self['missing'] == 1", error("no such key: missing"), self},
      {"self.name.first == 'j'", error("type 'string' does not support field selection"), self},
      {"self.foo__dash__bar == 1", pass(), self},
      {"self.namespace == 'ns' && self.__namespace__ == 'ns'", pass(), self},
      {"has(self.name) && !has(self.missing)", pass(), self},
      {"has(self.labels.app) && !has(self.labels.other)", pass(), self},
      {"has(self.missing.app)", error("no such key: missing"), self},
      {"has(self.name.x)", error("type 'string' does not support field selection"), self},
      {"80 in self.ports && !(81 in self.ports)", pass(), self},
      {"'app' in self.labels && !('x' in self.labels)", pass(), self},
      {"1 in {1: 'a'} && 1u in {1: 'a'} && 1.0 in {1: 'a'}", pass()},
      {"1 in 1", error("no matching overload for '@in' applied to '(int, int)'")},
      {"[1, 2] + [3] == [1, 2, 3]", pass()},
      {"'ab' + 'cd' == 'abcd'", pass()},
      {"[1, 'a', [true]][2][0]", pass()},
      {"{'a': {'b': true}}.a.b", pass()},
      {"{1: 'one', 'two': 2, true: 'yes'}[true] == 'yes'", pass()},
      {"{'a': 1, 'a': 2}.a == 1", error("repeated key in map: a")},
      {"{[1]: 2} == {}", error("unsupported key type: list")},
      {"[1, 2, 3,].size() == 3 && {'a': 1,}.size() == 1", pass()},
      {"[1 / 0][0] == 0", error("division by zero")},
  });
}

TEST(CelEval, ResultMustBeABool) {
  run_cases({
      {"1", error("cel expression must evaluate to a bool, got 'int'")},
      {"'a'", error("cel expression must evaluate to a bool, got 'string'")},
      {"null", error("cel expression must evaluate to a bool, got 'null_type'")},
  });
}

}  // namespace
}  // namespace kpt::cel
