#include "schema/structural_schema_impl.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kpt::schema {
namespace {

TEST(Pattern, TheQuantityPatternIsRecognisedAndUsesTheParser) {
  StructuralSchema s;
  s.pattern =
      R"(^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$)";
  compile_pattern(s);
  ASSERT_TRUE(s.compiled_pattern);
  EXPECT_EQ(match_pattern(*s.compiled_pattern, std::string(50'000, '1')), PatternResult::match);
  EXPECT_EQ(match_pattern(*s.compiled_pattern, "16GB"), PatternResult::no_match);
}

TEST(Pattern, OtherPatternsUseRegexOnlyOnValuesUpTo4096Characters) {
  StructuralSchema s;
  s.pattern = "^[a-z]+$";
  compile_pattern(s);
  EXPECT_EQ(match_pattern(*s.compiled_pattern, "abc"), PatternResult::match);
  EXPECT_EQ(match_pattern(*s.compiled_pattern, "aBc"), PatternResult::no_match);
  EXPECT_EQ(match_pattern(*s.compiled_pattern, std::string(4096, 'a')), PatternResult::match);
  EXPECT_EQ(match_pattern(*s.compiled_pattern, std::string(4097, 'a')), PatternResult::too_long);
}

TEST(Pattern, AnUncompilablePatternIsReportedNotThrown) {
  StructuralSchema s;
  s.pattern = "([a-z";
  compile_pattern(s);
  EXPECT_EQ(match_pattern(*s.compiled_pattern, "abc"), PatternResult::bad_pattern);
}

TEST(Pattern, PatternsAreGoRegexpSyntaxAndWhatGoRefusesIsNotCompiled) {
  const auto result = [](const std::string& pattern, const std::string& value) {
    StructuralSchema s;
    s.pattern = pattern;
    compile_pattern(s);
    return match_pattern(*s.compiled_pattern, value);
  };
  // RE2 syntax that ECMAScript does not have.
  EXPECT_EQ(result("(?i)^abc$", "ABC"), PatternResult::match);
  EXPECT_EQ(result(R"(^\Qa.b\E$)", "a.b"), PatternResult::match);
  EXPECT_EQ(result(R"(^\Qa.b\E$)", "axb"), PatternResult::no_match);
  // Go refuses backreferences and counts over 1000. Found by fuzzing: std::regex's parser
  // overflowed a signed integer on the number after the backslash.
  EXPECT_EQ(result(R"((a)\1)", "aa"), PatternResult::bad_pattern);
  EXPECT_EQ(result(std::string("\\") + std::string(60, '8'), "8"), PatternResult::bad_pattern);
  EXPECT_EQ(result("a{1001}", "a"), PatternResult::bad_pattern);
}

}  // namespace
}  // namespace kpt::schema
