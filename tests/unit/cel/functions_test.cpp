#include "tests/unit/cel/cel_test_support.hpp"

#include <gtest/gtest.h>

namespace kpt::cel {
namespace {

using namespace kpt::cel::testing;

TEST(CelFunctions, SizeCountsCodePointsElementsAndEntries) {
  run_cases({
      {"size('héllo') == 5 && 'héllo'.size() == 5", pass()},
      {"size('') == 0 && size([1, 2]) == 2 && [].size() == 0", pass()},
      {"size({'a': 1}) == 1 && {}.size() == 0", pass()},
      {"size('\\U0001F600') == 1", pass()},
      {"size(1) == 1", error("no matching overload for 'size' applied to '(int)'")},
      {"size(1, 2) == 1", unsupported("function 'size' with 2 arguments")},
  });
}

TEST(CelFunctions, StringPredicates) {
  run_cases({
      {"'kubeflow'.startsWith('kube') && 'kubeflow'.endsWith('flow') && 'kubeflow'.contains('efl')", pass()},
      {"'a'.startsWith('ab') || 'a'.endsWith('ba') || 'a'.contains('b')", fail()},
      {"''.startsWith('') && ''.contains('')", pass()},
      {"'abc'.matches('^a.c$') && matches('abc', 'b')", pass()},
      {"'abc'.matches('^b')", fail()},
      {"'x'.matches('[')", error("rule compile error: 1:13: error parsing regexp: missing closing ]: `[`")},
      {"'x'.matches('\\\\pL') && !'1'.matches('\\\\pL')", pass()},
      {"'x'.matches(self)", error("error parsing regexp: missing closing ): `(`"), str("(")},
      {"'ab'.matches(self)", pass(), str("^a")},
      {"'x'.matches(self)", pass(), str("\\pL")},
      {"'x'.matches(self)", unsupported("regular expression longer than 10240 bytes"),
       str(std::string(10241, 'a'))},
      {"1.startsWith('a')", error("no matching overload for 'startsWith' applied to '(int, string)'")},
      {"'a'.contains(1)", error("no matching overload for 'contains' applied to '(string, int)'")},
  });
}

TEST(CelFunctions, ConversionsFollowCelGo) {
  run_cases({
      {"int('42') == 42 && int('-7') == -7 && int('+3') == 3 && int(3.9) == 3 && int(-3.9) == -3", pass()},
      {"int(5u) == 5 && int(5) == 5", pass()},
      {"int('4x') == 4", error("type conversion error from 'string' to 'int'")},
      {"int(' 4') == 4", error("type conversion error from 'string' to 'int'")},
      {"int('9223372036854775808') == 0", error("type conversion error from 'string' to 'int'")},
      {"int(18446744073709551615u) == 0", error("integer overflow")},
      {"int(9.3e18) == 0", error("integer overflow")},
      {"int(-9223372036854775808.0) == 0", error("integer overflow")},
      {"int(1.0 / 0.0) == 0", error("integer overflow")},
      {"int(true) == 1", error("no matching overload for 'int' applied to '(bool)'")},
      {"uint(42) == 42u && uint('7') == 7u && uint(2.5) == 2u", pass()},
      {"uint(-1) == 0u", error("unsigned integer overflow")},
      {"uint(-0.5) == 0u", error("unsigned integer overflow")},
      {"uint('-1') == 0u", error("type conversion error from 'string' to 'uint'")},
      {"double(1) == 1.0 && double(2u) == 2.0 && double('2.5') == 2.5 && double('1e3') == 1000.0", pass()},
      {"double('inf') > 1e308 && double('-Infinity') < -1e308 && double('+1.5') == 1.5", pass()},
      {"double('x') == 0.0", error("type conversion error from 'string' to 'double'")},
      {"string(42) == '42' && string(7u) == '7' && string(1.5) == '1.5' && string(true) == 'true'", pass()},
      {"string(1e6) == '1e+06' && string(0.1) == '0.1' && string(-0.0) == '-0'", pass()},
      {"string('x') == 'x'", pass()},
      {"string([1]) == ''", error("no matching overload for 'string' applied to '(list)'")},
      {"bool('true') && bool('T') && bool('1') && !bool('False') && !bool('0')", pass()},
      {"bool('yes')", error("type conversion error from 'string' to 'bool'")},
      {"dyn(1) == 1 && type(dyn('a')) == string", pass()},
  });
}

TEST(CelFunctions, KubernetesStringLibrary) {
  run_cases({
      {"'héllo'.charAt(1) == 'é' && 'abc'.charAt(3) == ''", pass()},
      {"'abc'.charAt(4) == ''", error("index out of range: 4")},
      {"'abc'.charAt(-1) == ''", error("index out of range: -1")},
      {"'hello mellow'.indexOf('ello') == 1 && 'hello mellow'.indexOf('ello', 2) == 7", pass()},
      {"'héllo'.indexOf('l') == 2 && 'abc'.indexOf('') == 0 && 'abc'.indexOf('', 9) == 3", pass()},
      {"'abc'.indexOf('z') == -1 && 'abc'.indexOf('a', 3) == -1", pass()},
      {"'abc'.indexOf('a', -1) == 0", error("index out of range: -1")},
      {"'hello mellow'.lastIndexOf('ello') == 7 && 'hello mellow'.lastIndexOf('ello', 6) == 1", pass()},
      {"'héllo'.lastIndexOf('l') == 3 && 'abc'.lastIndexOf('') == 3 && 'a'.lastIndexOf('abc') == -1", pass()},
      {"'abc'.lastIndexOf('c', 1) == -1 && 'abc'.lastIndexOf('a', 0) == 0", pass()},
      {"'abc'.lastIndexOf('a', -2) == 0", error("index out of range: -2")},
      {"'TacoCat é'.lowerAscii() == 'tacocat é' && 'TacoCat é'.upperAscii() == 'TACOCAT é'", pass()},
      {"'a.b.c'.replace('.', '-') == 'a-b-c' && 'a.b.c'.replace('.', '', 1) == 'ab.c'", pass()},
      {"'ab'.replace('', '-') == '-a-b-' && 'abc'.replace('x', 'y') == 'abc' && 'aa'.replace('a', 'b', 0) == "
       "'aa'",
       pass()},
      {"'a,b,,c'.split(',') == ['a', 'b', '', 'c'] && 'a,b,c'.split(',', 2) == ['a', 'b,c']", pass()},
      {"'abc'.split('') == ['a', 'b', 'c'] && 'abc'.split('', 2) == ['a', 'bc'] && ''.split('') == []",
       pass()},
      {"''.split(',') == [''] && 'a,b'.split(',', 0) == [] && 'a'.split(',', -1) == ['a']", pass()},
      {"'héllo'.substring(1) == 'éllo' && 'héllo'.substring(1, 3) == 'él' && 'abc'.substring(3) == ''",
       pass()},
      {"'abc'.substring(2, 1) == ''", error("invalid substring range. start: 2, end: 1")},
      {"'abc'.substring(4) == ''", error("index out of range: 4")},
      {"'abc'.substring(0, 9) == ''", error("index out of range: 9")},
      {"'  \\t a b \\n'.trim() == 'a b' && '\\u00a0x\\u3000'.trim() == 'x' && ''.trim() == ''", pass()},
      {"['a', 'b'].join() == 'ab' && ['a', 'b'].join('-') == 'a-b' && [].join(',') == ''", pass()},
      {"['a', 1].join(',') == ''", error("join: invalid input: 1")},
      {"'a'.join() == ''", error("no matching overload for 'join' applied to '(string)'")},
      {"'a'.split(1) == []", error("no matching overload for 'split' applied to '(string, int)'")},
      {"'a'.trim(1) == ''", unsupported("function 'trim' as a method with 1 argument")},
  });
}

TEST(CelFunctions, KubernetesListLibrary) {
  run_cases({
      {"[1, 2, 2, 3].isSorted() && ['a', 'b'].isSorted() && [].isSorted() && [1, 2.5, 3u].isSorted()",
       pass()},
      {"[2.0, 1.0].isSorted()", fail()},
      {"[1, 'a'].isSorted()", error("no matching overload for 'isSorted' applied to '(int, string)'")},
      {"[1, 3].sum() == 4 && [1.5, 2.5].sum() == 4.0 && [1u, 2u].sum() == 3u && [].sum() == 0", pass()},
      {"[9223372036854775807, 1].sum() == 0", error("integer overflow")},
      {"[1, 1.5].sum() == 2.5", error("no matching overload for '_+_' applied to '(int, double)'")},
      {"['a'].sum() == 'a'", error("no matching overload for 'sum' applied to '(string)'")},
      {"[3, 1, 2].min() == 1 && [3, 1, 2].max() == 3 && ['b', 'a'].min() == 'a' && [1].max() == 1", pass()},
      {"[].min() == 0", error("min called on empty list")},
      {"[].max() == 0", error("max called on empty list")},
      {"[1, 2, 2, 3].indexOf(2) == 1 && [1, 2, 2, 3].lastIndexOf(2) == 2 && [1.0].indexOf(1) == 0", pass()},
      {"[].indexOf('x') == -1 && ['a'].lastIndexOf('b') == -1", pass()},
      {"[1].indexOf(1, 0) == 0", error("no matching overload for 'indexOf' applied to '(list, int, int)'")},
      {"'a'.sum() == 0", error("no matching overload for 'sum' applied to '(string)'")},
  });
}

TEST(CelFunctions, UnknownFunctionsAreUnsupportedNotErrors) {
  run_cases({
      {"quantity(self) == quantity('1')", unsupported("function 'quantity'"), str("1")},
      {"self.isQuantity()", unsupported("function 'isQuantity'"), str("1")},
      {"url(self).getHost() == 'x'", unsupported("function 'url'"), str("x")},
      {"timestamp(self) > timestamp('2020-01-01T00:00:00Z')", unsupported("function 'timestamp'"), str("x")},
      {"true || quantity('1') == 1", unsupported("function 'quantity'")},
      {"'a'.format([1]) == 'a'", unsupported("function 'format'")},
      {"'a'.reverse() == 'a'", unsupported("function 'reverse'")},
      {"self.size()", error("no matching overload for 'size' applied to '(int)'"), num(1)},
      {"foo == 1", error("rule compile error: 1:1: undeclared reference to 'foo'")},
      {"self.all(x, y)", error("rule compile error: 1:13: undeclared reference to 'y'"), list({})},
  });
}

TEST(CelFunctions, OpaqueValuesAreUnsupportedWhenUsed) {
  const Value ts = Value::opaque("google.protobuf.Timestamp");
  const Value self = obj({{"t", ts}, {"n", num(1)}});
  run_cases({
      {"has(self.t)", pass(), self},
      {"self.t == self.t", unsupported("google.protobuf.Timestamp values"), self},
      {"self.t < self.t", unsupported("google.protobuf.Timestamp values"), self},
      {"size(self.t) > 0", unsupported("google.protobuf.Timestamp values"), self},
      {"[self.t] == [self.t]", unsupported("google.protobuf.Timestamp values"), self},
      {"self.t in [self.t]", unsupported("google.protobuf.Timestamp values"), self},
      {"self.n == 1 || self.t == self.t", pass(), self},
      {"type(self.t) == type(self.t)", pass(), self},
  });
}

}  // namespace
}  // namespace kpt::cel
