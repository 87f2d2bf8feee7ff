#include "schema/quantity.hpp"

#include "schema/structural_schema_impl.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kpt::schema {
namespace {

TEST(Quantity, AcceptsWhatTheKubernetesPatternAcceptsAndNothingElse) {
  struct Case {
    const char* text;
    bool valid;
  };
  const Case cases[] = {
      {"1", true},     {"100m", true}, {"1.5Gi", true},  {"16Gi", true},   {"16G", true},   {"1e3", true},
      {"1E3", true},   {"1E", true},   {"+1", true},     {"-1.5", true},   {".5", true},    {"5.", true},
      {"2Ki", true},   {"1Ei", true},  {"1e-3", true},   {"1e+3", true},   {"1e.5", true},  {"0", true},
      {"16GB", false}, {"", false},    {"Gi", false},    {".", false},     {"1 Gi", false}, {"1gi", false},
      {"1e", false},   {"1ki", false}, {"1mi", false},   {"1.2.3", false}, {"--1", false},  {"1Gi ", false},
      {"1x", false},   {"e3", false},  {"1e3Gi", false}, {"0x10", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(is_valid_quantity(c.text), c.valid);
  }
}

TEST(Quantity, ChecksAFiftyThousandCharacterValueWithoutCrashing) {
  const std::string digits(50'000, '9');
  EXPECT_TRUE(is_valid_quantity(digits));
  EXPECT_FALSE(is_valid_quantity(digits + "GB"));
  EXPECT_FALSE(quantity_value(digits).has_value());  // valid, but no meaningful size
}

TEST(Quantity, ValuesAreInBaseUnits) {
  EXPECT_DOUBLE_EQ(*quantity_value("1Gi"), 1073741824.0);
  EXPECT_DOUBLE_EQ(*quantity_value("100m"), 0.1);
  EXPECT_DOUBLE_EQ(*quantity_value("1e3"), 1000.0);
  EXPECT_DOUBLE_EQ(*quantity_value("2k"), 2000.0);
  EXPECT_FALSE(quantity_value("16GB").has_value());
}

TEST(Quantity, TheQuantityPatternIsRecognisedAndUsesTheParser) {
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
