#include "tests/unit/cel/cel_test_support.hpp"

#include <gtest/gtest.h>

namespace kpt::cel {
namespace {

using namespace kpt::cel::testing;

TEST(CelMacros, QuantifiersOverListsAndMaps) {
  const Value nums = list({num(1), num(2), num(3)});
  run_cases({
      {"self.all(x, x > 0)", pass(), nums},
      {"self.all(x, x > 1)", fail(), nums},
      {"self.exists(x, x == 2)", pass(), nums},
      {"self.exists(x, x == 5)", fail(), nums},
      {"self.exists_one(x, x > 2)", pass(), nums},
      {"self.exists_one(x, x > 1)", fail(), nums},
      {"[].all(x, false) && ![].exists(x, true) && ![].exists_one(x, true)", pass()},
      {"{'a': 1, 'b': 2}.all(k, k in ['a', 'b'])", pass()},
      {"{'a': 1, 'b': 2}.exists(k, k == 'b')", pass()},
      {"self.all(x, self.exists(y, y == x))", pass(), nums},
      {"self.all(x, [x].all(x, x > 0))", pass(), nums},  // an inner variable shadows the outer
      {"1.all(x, true)", error("no matching overload for 'all' applied to '(int)'")},
      {"self.all(x, x)", error("no matching overload for '_&&_' applied to '(int)'"), nums},
  });
}

TEST(CelMacros, QuantifierErrorsFollowTheLogicalOperators) {
  const Value nums = list({num(0), num(1), num(2)});
  run_cases({
      {"self.all(x, 10 / x > 1)", error("division by zero"), nums},
      {"self.all(x, 10 / x > 6)", fail(), nums},  // a false element wins over the error before it
      {"self.exists(x, 10 / x == 5)", pass(), nums},
      {"self.exists(x, 10 / x == 7)", error("division by zero"), nums},
      {"self.exists_one(x, 10 / x == 5)", error("division by zero"), nums},
  });
}

TEST(CelMacros, MapAndFilterBuildLists) {
  const Value nums = list({num(1), num(2), num(3)});
  run_cases({
      {"self.map(x, x * 2) == [2, 4, 6]", pass(), nums},
      {"self.map(x, x > 1, x * 10) == [20, 30]", pass(), nums},
      {"self.filter(x, x % 2 == 1) == [1, 3]", pass(), nums},
      {"self.filter(x, x > 5) == []", pass(), nums},
      {"{'a': 1, 'b': 2}.map(k, k + '!') == ['a!', 'b!']", pass()},
      {"{'a': 1, 'b': 2}.filter(k, k == 'b') == ['b']", pass()},
      {"self.map(x, self.map(y, x * y)) == [[1, 2, 3], [2, 4, 6], [3, 6, 9]]", pass(), nums},
      {"self.map(x, 10 / (x - 2)).size() == 3", error("division by zero"), nums},
      {"self.filter(x, x) == []", error("no matching overload for '_?_:_' applied to '(int)'"), nums},
      {"self.map(x, x, x) == []", error("no matching overload for '_?_:_' applied to '(int)'"), nums},
      {"[has(self.a), has(self.b), has(self.c)].filter(x, x).size() == 2", pass(),
       obj({{"a", num(1)}, {"c", num(2)}})},
  });
}

}  // namespace
}  // namespace kpt::cel
