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

}  // namespace
}  // namespace kpt::schema
