#include "schema/cel/parser.hpp"

#include "tests/unit/cel/cel_test_support.hpp"

#include <gtest/gtest.h>

namespace kpt::cel {
namespace {

using namespace kpt::cel::testing;

/// The AST as a compact S-expression, to check its shape.
std::string shape(const Ast& ast, NodeId id) {
  const Node& n = ast.at(id);
  std::string args;
  for (NodeId a : n.args) args += " " + shape(ast, a);
  switch (n.kind) {
    case NodeKind::literal:
      return display(n.literal);
    case NodeKind::ident:
      return n.name;
    case NodeKind::select:
      return "(." + n.name + args + ")";
    case NodeKind::has:
      return "(has ." + n.name + args + ")";
    case NodeKind::index:
      return "([]" + args + ")";
    case NodeKind::call:
      return "(" + std::string(n.member ? "." : "") + n.name + args + ")";
    case NodeKind::list:
      return "(list" + args + ")";
    case NodeKind::map:
      return "(map" + args + ")";
    case NodeKind::conditional:
      return "(?:" + args + ")";
    case NodeKind::unary:
    case NodeKind::binary:
      return "(" + std::string(op_name(n.op)) + args + ")";
    case NodeKind::comprehension:
      return "(" + std::string(macro_name(n.macro)) + " " + n.name + args + ")";
  }
  return "?";
}

std::string parsed(std::string_view src) {
  ParseResult r = parse(src);
  if (r.error) return "error " + format_compile_error(src, *r.error);
  return shape(r.ast, r.ast.root);
}

TEST(CelParser, PrecedenceAndAssociativity) {
  EXPECT_EQ(parsed("1 + 2 * 3"), "(_+_ 1 (_*_ 2 3))");
  EXPECT_EQ(parsed("1 - 2 - 3"), "(_-_ (_-_ 1 2) 3)");
  EXPECT_EQ(parsed("a || b && c"), "(_||_ a (_&&_ b c))");
  EXPECT_EQ(parsed("a < b == c"), "(_==_ (_<_ a b) c)");
  EXPECT_EQ(parsed("x in [1] && !y"), "(_&&_ (@in x (list 1)) (!_ y))");
  EXPECT_EQ(parsed("a ? b : c ? d : e"), "(?: a b (?: c d e))");
  EXPECT_EQ(parsed("-a.b[0]"), "(-_ ([] (.b a) 0))");
  EXPECT_EQ(parsed("-5 + 1"), "(_+_ -5 1)");
  EXPECT_EQ(parsed("-5.size()"), "(-_ (.size 5))");
  EXPECT_EQ(parsed("!!a"), "(!_ (!_ a))");
}

TEST(CelParser, CallsLiteralsAndSelections) {
  EXPECT_EQ(parsed("size(self.x)"), "(size (.x self))");
  EXPECT_EQ(parsed("self.name.startsWith('a')"), "(.startsWith (.name self) a)");
  EXPECT_EQ(parsed("{'a': 1, 2: [true]}"), "(map a 1 2 (list true))");
  EXPECT_EQ(parsed("self.namespace.if"), "(.if (.namespace self))");  // reserved words are fine as fields
  EXPECT_EQ(parsed(".self.x"), "(.x self)");
  EXPECT_EQ(parsed("(((1)))"), "1");
}

TEST(CelParser, MacrosExpand) {
  EXPECT_EQ(parsed("has(self.a)"), "(has .a self)");
  EXPECT_EQ(parsed("self.all(x, x > 0)"), "(all x self (_>_ x 0))");
  EXPECT_EQ(parsed("self.exists_one(x, x)"), "(exists_one x self x)");
  EXPECT_EQ(parsed("self.map(x, x * 2)"), "(map x self (_*_ x 2))");
  EXPECT_EQ(parsed("self.map(x, x > 0, x * 2)"), "(map x self (_>_ x 0) (_*_ x 2))");
  EXPECT_EQ(parsed("self.filter(x, x)"), "(filter x self x)");
  EXPECT_EQ(parsed("all(x, y)"), "(all x y)");  // not a macro: a global call, which the checker refuses
}

TEST(CelParser, SyntaxErrorsSayWhereAndWhat) {
  EXPECT_EQ(parsed(""), "error 1:1: unexpected end of input");
  EXPECT_EQ(parsed("1 +"), "error 1:4: unexpected end of input");
  EXPECT_EQ(parsed("(1"), "error 1:3: expected ')' but found end of input");
  EXPECT_EQ(parsed("1 2"), "error 1:3: unexpected number");
  EXPECT_EQ(parsed("[1, 2"), "error 1:6: expected ']' but found end of input");
  EXPECT_EQ(parsed("{'a' 1}"), "error 1:6: expected ':' but found number");
  EXPECT_EQ(parsed("f(1,)"), "error 1:5: unexpected ')'");
  EXPECT_EQ(parsed("a.1"), "error 1:2: unexpected number");  // .1 is a double literal
  EXPECT_EQ(parsed("a.'x'"), "error 1:3: expected a field name after '.' but found string");
  EXPECT_EQ(parsed("a ? b"), "error 1:6: expected ':' but found end of input");
  EXPECT_EQ(parsed("if"), "error 1:1: reserved identifier 'if'");
  EXPECT_EQ(parsed("namespace(1)"), "error 1:1: reserved identifier 'namespace'");
  EXPECT_EQ(parsed("has(self)"), "error 1:1: invalid argument to has() macro");
  EXPECT_EQ(parsed("has(self.a, self.b)"), "error 1:1: invalid argument to has() macro");
  EXPECT_EQ(parsed("self.all(x.y, true)"), "error 1:12: argument must be a simple name");
  EXPECT_EQ(parsed("9223372036854775808"), "error 1:1: invalid int literal");
  EXPECT_EQ(parsed("a)"), "error 1:2: unexpected ')'");
}

TEST(CelParser, UnsupportedSyntaxIsReportedAsSuch) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"self.?a", "optional field selection ('.?')"},
      {"self[?0]", "optional index ('[?')"},
      {"[?a]", "optional elements ('?')"},
      {"{?'a': 1}", "optional entries ('?')"},
      {"Msg{a: 1}", "message construction"},
      {"a.b.Msg{}", "message construction"},
      {"self.all(k, v, v > 0)", "macro 'all' with 3 arguments"},
      {"self.exists(x)", "macro 'exists' with 1 arguments"},
  };
  for (const auto& [src, what] : cases) {
    SCOPED_TRACE(src);
    ParseResult r = parse(src);
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->kind, CompileErrorKind::unsupported);
    EXPECT_EQ(r.error->message, what);
  }
}

TEST(CelParser, LimitsBoundLengthNestingAndSize) {
  Limits limits;
  const std::string parens = std::string(101, '(') + "1" + std::string(101, ')');
  EXPECT_EQ(parsed(parens), "error 1:101: expression nesting exceeds 100 levels");
  EXPECT_EQ(parsed(std::string(99, '(') + "1" + std::string(99, ')')), "1");
  EXPECT_EQ(parsed(std::string(150, '!') + "true"), "error 1:1: expression nesting exceeds 100 levels");
  std::string chain = "1";
  for (int i = 0; i < 150; ++i) chain += " + 1";
  EXPECT_EQ(parsed(chain).substr(0, 12), "error 1:399:");
  std::string lists;
  for (int i = 0; i < 120; ++i) lists += "[";
  EXPECT_EQ(parsed(lists).substr(0, 47), "error 1:101: expression nesting exceeds 100 lev");
  std::string wide = "[";
  for (int i = 0; i < 5100; ++i) wide += "1,";
  EXPECT_EQ(parsed(wide + "1]"), "error 1:10002: expression has more than 5000 nodes");
  ParseResult too_long = parse(std::string(10 * 1024 + 1, ' '));
  ASSERT_TRUE(too_long.error);
  EXPECT_EQ(too_long.error->kind, CompileErrorKind::limit);
  EXPECT_EQ(too_long.error->message, "expression is longer than 10240 bytes");
  limits.max_depth = 3;
  EXPECT_TRUE(parse("1 + 1 + 1 + 1", limits).error);
  EXPECT_FALSE(parse("1 + 1", limits).error);
}

TEST(CelParser, LimitErrorsMakeTheRuleUnsupported) {
  run_cases({
      {std::string(200, '(') + "true" + std::string(200, ')'),
       unsupported("expression nesting exceeds 100 levels")},
      {"self == " + std::string(20000, '1'), unsupported("expression is longer than 10240 bytes")},
  });
}

}  // namespace
}  // namespace kpt::cel
