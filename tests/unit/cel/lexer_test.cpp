#include "schema/cel/lexer.hpp"

#include <gtest/gtest.h>

namespace kpt::cel {
namespace {

/// The one token a source lexes to (before `end`), or a failure.
Token single(std::string_view src) {
  LexResult r = lex(src);
  EXPECT_FALSE(r.error) << (r.error ? r.error->message : "");
  EXPECT_EQ(r.tokens.size(), 2u);
  return r.tokens.empty() ? Token{} : r.tokens.front();
}

std::string lex_error(std::string_view src) {
  LexResult r = lex(src);
  return r.error ? std::to_string(r.error->offset) + ": " + r.error->message : "no error";
}

TEST(CelLexer, NumbersOfEveryForm) {
  EXPECT_EQ(single("42").number, 42u);
  EXPECT_EQ(single("42").kind, TokenKind::int_lit);
  EXPECT_EQ(single("0x2A").number, 42u);
  EXPECT_EQ(single("42u").kind, TokenKind::uint_lit);
  EXPECT_EQ(single("0xFFU").number, 255u);
  EXPECT_EQ(single("18446744073709551615u").number, 18446744073709551615u);
  EXPECT_EQ(single("9223372036854775808").number, 9223372036854775808u);  // negated by the parser
  EXPECT_EQ(single("1.5").real, 1.5);
  EXPECT_EQ(single(".25").real, 0.25);
  EXPECT_EQ(single("1e3").real, 1000.0);
  EXPECT_EQ(single("2.5E-2").real, 0.025);
  EXPECT_EQ(single("1e+2").kind, TokenKind::double_lit);
}

TEST(CelLexer, StringsWithEveryQuoteAndEscape) {
  EXPECT_EQ(single("'abc'").text, "abc");
  EXPECT_EQ(single("\"a'b\"").text, "a'b");
  EXPECT_EQ(single("'''a\n'b'c'''").text, "a\n'b'c");
  EXPECT_EQ(single("\"\"\"x\"\"y\"\"\"").text, "x\"\"y");
  EXPECT_EQ(single(R"('\a\b\f\n\r\t\v\\\?\"\'\`')").text, "\a\b\f\n\r\t\v\\?\"'`");
  EXPECT_EQ(single(R"('\x41\X42')").text, "AB");
  EXPECT_EQ(single(R"('\101\060')").text, "A0");
  EXPECT_EQ(single(R"('\u00e9')").text, "\xC3\xA9");
  EXPECT_EQ(single(R"('\U0001F600')").text, "\xF0\x9F\x98\x80");
  EXPECT_EQ(single(R"(r'\d+\.')").text, R"(\d+\.)");
  EXPECT_EQ(single(R"(R"\n")").text, R"(\n)");
  EXPECT_EQ(single("'é'").text, "é");
}

TEST(CelLexer, IdentifiersKeywordsAndComments) {
  LexResult r = lex("self.in_x // a comment\n && !true in null false");
  ASSERT_FALSE(r.error);
  std::vector<TokenKind> kinds;
  for (const auto& t : r.tokens) kinds.push_back(t.kind);
  EXPECT_EQ(kinds, (std::vector<TokenKind>{TokenKind::ident, TokenKind::dot, TokenKind::ident,
                                           TokenKind::logical_and, TokenKind::logical_not, TokenKind::kw_true,
                                           TokenKind::kw_in, TokenKind::kw_null, TokenKind::kw_false,
                                           TokenKind::end}));
  EXPECT_EQ(r.tokens[2].text, "in_x");
  EXPECT_EQ(r.tokens[3].offset, 24u);
  EXPECT_EQ(single("brand").kind, TokenKind::ident);  // not a bytes prefix
  EXPECT_EQ(single("rx").kind, TokenKind::ident);
}

TEST(CelLexer, OperatorsTakeTheLongestSpelling) {
  LexResult r = lex("<= < >= > == != ! && || ? : , . [ ] ( ) { } + - * / %");
  ASSERT_FALSE(r.error);
  EXPECT_EQ(r.tokens.size(), 25u);
  EXPECT_EQ(r.tokens[0].kind, TokenKind::le);
  EXPECT_EQ(r.tokens[1].kind, TokenKind::lt);
  EXPECT_EQ(r.tokens[4].kind, TokenKind::eq);
  EXPECT_EQ(r.tokens[5].kind, TokenKind::ne);
}

TEST(CelLexer, MalformedInputIsAnErrorAtItsOffset) {
  EXPECT_EQ(lex_error("'abc"), "0: unterminated string literal");
  EXPECT_EQ(lex_error("x == 'a\nb'"), "5: unterminated string literal");
  EXPECT_EQ(lex_error("'''abc''"), "0: unterminated string literal");
  EXPECT_EQ(lex_error(R"('\q')"), "1: invalid escape sequence");
  EXPECT_EQ(lex_error(R"('\x4')"), "1: invalid escape sequence");
  EXPECT_EQ(lex_error(R"('\400')"), "1: invalid escape sequence");
  EXPECT_EQ(lex_error(R"('\ud800')"), "1: invalid unicode code point in escape sequence");
  EXPECT_EQ(lex_error(R"('\U00110000')"), "1: invalid unicode code point in escape sequence");
  EXPECT_EQ(lex_error("9223372036854775809"), "0: invalid int literal");
  EXPECT_EQ(lex_error("18446744073709551616u"), "0: invalid uint literal");
  EXPECT_EQ(lex_error("1e400"), "0: invalid double literal");
  EXPECT_EQ(lex_error("a = b"), "2: unexpected character '='");
  EXPECT_EQ(lex_error("a & b"), "2: unexpected character '&'");
  EXPECT_EQ(lex_error("a # b"), "2: unexpected character '#'");
  EXPECT_EQ(lex_error("§"), "0: unexpected character '§'");
}

TEST(CelLexer, BytesAndQuotedFieldsAreUnsupported) {
  for (std::string_view src : {"b'abc'", "B\"x\"", "br'x'", "RB'x'", "self.`a-b`"}) {
    SCOPED_TRACE(src);
    LexResult r = lex(src);
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->kind, CompileErrorKind::unsupported);
  }
  EXPECT_EQ(lex_error("x == b'a'"), "5: bytes literals");
  EXPECT_EQ(lex_error("self.`a-b`"), "5: quoted field names");
}

TEST(CelLexer, CompileErrorsFormatAsLineAndColumn) {
  EXPECT_EQ(format_compile_error("a + )", CompileError{CompileErrorKind::syntax, 4, "unexpected ')'"}),
            "1:5: unexpected ')'");
  EXPECT_EQ(format_compile_error("a &&\n  é )", CompileError{CompileErrorKind::syntax, 10, "unexpected ')'"}),
            "2:5: unexpected ')'");
}

}  // namespace
}  // namespace kpt::cel
