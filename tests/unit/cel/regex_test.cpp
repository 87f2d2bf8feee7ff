#include "schema/cel/regex.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kpt::cel::regex {
namespace {

struct MatchCase {
  std::string pattern;
  std::string text;
  bool matches;
};

/// "match", "no match", or the compile error (prefixed "unsupported: " when it is one).
std::string run(const std::string& pattern, const std::string& text) {
  auto compiled = Regex::compile(pattern);
  if (const auto* error = std::get_if<RegexError>(&compiled)) {
    return (error->unsupported ? "unsupported: " : "") + error->message;
  }
  return std::get<0>(compiled)->search(text) ? "match" : "no match";
}

TEST(CelRegex, MatchesAsGoRegexpMatchString) {
  const std::vector<MatchCase> cases = {
      // Kubernetes name patterns, as CRD rules spell them.
      {"^[a-z]([-a-z0-9]*[a-z0-9])?$", "my-job-1", true},
      {"^[a-z]([-a-z0-9]*[a-z0-9])?$", "My-job", false},
      {"^[a-z]([-a-z0-9]*[a-z0-9])?$", "job-", false},
      {"^[a-z]([-a-z0-9]*[a-z0-9])?$", "", false},
      {"^[a-z]([-a-z0-9]*[a-z0-9])?$", "a", true},
      {"^[A-Za-z][A-Za-z0-9+.-]*://.+$", "s3://bucket/model", true},
      {"^[A-Za-z][A-Za-z0-9+.-]*://.+$", "hf://", false},
      {"^[A-Za-z][A-Za-z0-9+.-]*://.+$", "1http://x", false},
      // Unanchored search.
      {"b+", "abbbc", true},
      {"x", "abc", false},
      {"", "", true},
      {"", "abc", true},
      // Alternation, groups, repetition.
      {"^(cat|dog)s?$", "dogs", true},
      {"^(cat|dog)s?$", "cow", false},
      {"^(?:ab){2,3}$", "ababab", true},
      {"^(?:ab){2,3}$", "ab", false},
      {"^(?:ab){2,3}$", "abababab", false},
      {"^a{3}$", "aaa", true},
      {"^a{2,}$", "aaaaa", true},
      {"^a{2,}$", "a", false},
      {"^a*?b+?c??$", "aabbc", true},
      {"^(?P<name>x+)(?<n2>y)$", "xxy", true},
      {"^(a*)*$", "aaaa", true},
      {"^(a|)+$", "aaa", true},
      {"a{,3}", "a{,3}", true},  // not a repeat: literal, as in Go
      {"a{x}", "a{x}", true},
      {"^()$", "", true},
      // Classes.
      {"^[^a-c]+$", "xyz", true},
      {"^[^a-c]+$", "xbz", false},
      {"^[]a]+$", "]a]", true},
      {"^[a-]+$", "a-a", true},
      {"^[\\d-z]+$", "1-z", true},
      {"^\\d+\\.\\d+$", "1.25", true},
      {"^\\w+$", "a_B9", true},
      {"^\\W$", "-", true},
      {"^\\s\\S$", " x", true},
      {"^[[:alpha:]]+[[:digit:]]$", "abc1", true},
      {"^[[:^alpha:]]$", "1", true},
      {"^[\\x41-\\x{43}]+$", "ABC", true},
      {"^[é-ë]$", "ê", true},
      {"^.$", "é", true},  // one code point, not one byte
      {"^..$", "é", false},
      {"^.$", "\n", false},
      {"(?s)^.$", "\n", true},
      // Escapes.
      {"^\\Qa.b*\\E$", "a.b*", true},
      {"^\\Qa.b*\\E$", "axbb", false},
      {"^a\\.b$", "a.b", true},
      {"^a\\.b$", "axb", false},
      {"^\\t\\n$", "\t\n", true},
      {"^\\x{263a}$", "\xE2\x98\xBA", true},
      {"^\\101$", "A", true},
      // Anchors and flags.
      {"\\Aab", "abc", true},
      {"bc\\z", "abc", true},
      {"ab$", "ab\n", false},  // RE2: $ is end of text without (?m)
      {"(?m)ab$", "ab\ncd", true},
      {"(?m)^cd", "ab\ncd", true},
      {"^cd", "ab\ncd", false},
      {"\\bfoo\\b", "a foo b", true},
      {"\\bfoo\\b", "afoob", false},
      {"\\Boo\\B", "afoob", true},
      {"(?i)^abc$", "AbC", true},
      {"(?i:a)b", "Ab", true},
      {"(?i:a)b", "AB", false},
      {"a(?i)b|c", "aB", true},
      {"a(?i)b|c", "C", true},
      {"(?i)k", "\xE2\x84\xAA", true},   // U+212A KELVIN SIGN folds to k, as in Go
      {"(?i)[a-z]+", "\xC5\xBF", true},  // U+017F LONG S folds to s
      {"(?i-i)a", "A", false},
      {"(?U)a+", "aaa", true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.pattern + " on '" + c.text + "'");
    EXPECT_EQ(run(c.pattern, c.text), c.matches ? "match" : "no match");
  }
}

TEST(CelRegex, SyntaxErrorsUseGoWording) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[a-z", "error parsing regexp: missing closing ]: `[a-z`"},
      {"x(ab", "error parsing regexp: missing closing ): `x(ab`"},
      {"ab)", "error parsing regexp: unexpected ): `ab)`"},
      {"*a", "error parsing regexp: missing argument to repetition operator: `*`"},
      {"a|+", "error parsing regexp: missing argument to repetition operator: `+`"},
      {"{2}", "error parsing regexp: missing argument to repetition operator: `{2}`"},
      {"a**", "error parsing regexp: invalid nested repetition operator: `**`"},
      {"a{2}+?", "error parsing regexp: invalid nested repetition operator: `{2}+?`"},
      {"a{1001}", "error parsing regexp: invalid repeat count: `{1001}`"},
      {"a{3,2}", "error parsing regexp: invalid repeat count: `{3,2}`"},
      {"[z-a]", "error parsing regexp: invalid character class range: `z-a`"},
      {"[a-\\d]", "error parsing regexp: invalid escape sequence: `\\d`"},
      {"[[:foo:]]", "error parsing regexp: invalid character class range: `[:foo:]`"},
      {"\\1", "error parsing regexp: invalid escape sequence: `\\1`"},
      {"\\Z", "error parsing regexp: invalid escape sequence: `\\Z`"},
      {"\\xZ", "error parsing regexp: invalid escape sequence: `\\xZ`"},
      {"\\x4", "error parsing regexp: invalid escape sequence: `\\x4`"},
      {"\\x{110000}", "error parsing regexp: invalid escape sequence: `\\x{110000`"},
      {"a\\", "error parsing regexp: trailing backslash at end of expression: ``"},
      {"(?=a)", "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"},
      {"(?<!a)", "error parsing regexp: invalid named capture: `(?<!a)`"},
      {"(?P<a-b>x)", "error parsing regexp: invalid named capture: `(?P<a-b>`"},
      {"(?P=n)", "error parsing regexp: invalid or unsupported Perl syntax: `(?P`"},
      {"(?i", "error parsing regexp: invalid or unsupported Perl syntax: `(?i`"},
      {"\xFF", "error parsing regexp: invalid UTF-8: `\xFF`"},
  };
  for (const auto& [pattern, message] : cases) {
    SCOPED_TRACE(pattern);
    EXPECT_EQ(run(pattern, ""), message);
  }
}

TEST(CelRegex, WhatGoAcceptsRunsUnicodeClassesAndFoldingIncluded) {
  const std::vector<MatchCase> cases = {
      {"^\\pL+$", "\xC3\xA9t\xC3\xA9", true},  // été
      {"^\\pL$", "1", false},
      {"^[\\p{Greek}]$", "\xCE\xB1", true},  // α
      {"^\\PN$", "x", true},
      {"(?i)^\xC3\xA9$", "\xC3\x89", true},  // é, É
      {"^[\\x{0}-\\x{10FFFF}]$", "\xF0\x9F\x98\x80", true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.pattern + " on '" + c.text + "'");
    EXPECT_EQ(run(c.pattern, c.text), c.matches ? "match" : "no match");
  }
}

TEST(CelRegex, WhereGoAndRe2DifferGoWins) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      // RE2's \C (any byte) is not Go syntax, in a class or out of it.
      {"a\\C", "error parsing regexp: invalid escape sequence: `\\C`"},
      {"[\\C]", "error parsing regexp: invalid escape sequence: `\\C`"},
      {"\\Z\\C", "error parsing regexp: invalid escape sequence: `\\Z`"},
      {"(\\C", "error parsing regexp: invalid escape sequence: `\\C`"},
      {"x\\\\C", "match"},         // an escaped backslash, then C
      {"\\Q\\C(?<\\E$", "match"},  // quoted: literal
      {"[(?<]+$", "match"},        // in a class: literal
      // Go 1.22's (?<name>..), and its errors in the pattern's own spelling.
      {"^(?<first>x)(?P<second>\\\\C)", "match"},
      {"(?<a-b>x)", "error parsing regexp: invalid named capture: `(?<a-b>`"},
      {"(?<", "error parsing regexp: invalid or unsupported Perl syntax: `(?<`"},
      {"x(?<n>[a-)", "error parsing regexp: invalid character class range: `a-)`"},
      // Go checks the whole pattern's UTF-8 first, and quotes it from the first bad byte.
      {"(\xFF"
       "ab",
       "error parsing regexp: invalid UTF-8: `\xFF"
       "ab`"},
      {"\xED\xA0\x80", "error parsing regexp: invalid UTF-8: `\xED\xA0\x80`"},
  };
  for (const auto& [pattern, expected] : cases) {
    SCOPED_TRACE(pattern);
    EXPECT_EQ(run(pattern, "x\\C(?<"), expected);
  }
}

TEST(CelRegex, PatternsPastTheBoundsAreUnsupported) {
  // Go accepts both; this project bounds a pattern's length and RE2's memory for it.
  EXPECT_EQ(run(std::string(10 * 1024 + 1, 'a'), ""),
            "unsupported: regular expression longer than 10240 bytes");
  EXPECT_EQ(run("\\pL{1000}\\pL{1000}", ""),
            "unsupported: regular expression larger than RE2 may compile in 1048576 bytes");
  // Nested counts whose product passes 1000 are refused as Go refuses them.
  EXPECT_EQ(run("(a{1000}){1000}", ""), "error parsing regexp: invalid repeat count: `{1000}`");
}

TEST(CelRegex, PathologicalPatternsRunInLinearTime) {
  // (a*)*b and (a|a)*b backtrack exponentially in a backtracking engine; here they are linear.
  const std::string text(20000, 'a');
  EXPECT_EQ(run("^(a*)*b$", text), "no match");
  EXPECT_EQ(run("(a|a)*b", text), "no match");
  EXPECT_EQ(run("(x+x+)+y", std::string(5000, 'x')), "no match");
  EXPECT_EQ(run("^(a|aa)+$", text), "match");
}

TEST(CelRegex, ARulesCacheCompilesEachPatternOnceUpToItsBound) {
  PatternCache cache;
  const auto first = cache.compile("^a+$");
  const auto again = cache.compile("^a+$");
  ASSERT_EQ(first.index(), 0u);
  EXPECT_EQ(std::get<0>(first).get(), std::get<0>(again).get());
  EXPECT_EQ(std::get<1>(cache.compile("(")).message, "error parsing regexp: missing closing ): `(`");
  EXPECT_EQ(std::get<1>(cache.compile("(")).message, "error parsing regexp: missing closing ): `(`");
  for (std::size_t i = 0; i < PatternCache::k_max_entries; ++i) (void)cache.compile("x" + std::to_string(i));
  const auto late = cache.compile("late");
  ASSERT_EQ(late.index(), 0u);
  EXPECT_NE(std::get<0>(late).get(), std::get<0>(cache.compile("late")).get());  // compiled, not kept
  EXPECT_TRUE(std::get<0>(late)->search("too late"));
  EXPECT_EQ(std::get<0>(cache.compile("^a+$")).get(), std::get<0>(first).get());
}

TEST(CelRegex, SizeIsTheProgramOrThePatternsLengthWhicheverIsMore) {
  auto small = Regex::compile("ab");
  auto big = Regex::compile("(ab){100}");
  auto wordy = Regex::compile("(a|a)*(b|b)*(c|c)*(d|d)*x");
  ASSERT_EQ(small.index(), 0u);
  ASSERT_EQ(big.index(), 0u);
  ASSERT_EQ(wordy.index(), 0u);
  EXPECT_LT(std::get<0>(small)->size(), 10u);
  EXPECT_GT(std::get<0>(big)->size(), 200u);
  EXPECT_EQ(std::get<0>(wordy)->size(), 25u);
}

}  // namespace
}  // namespace kpt::cel::regex
