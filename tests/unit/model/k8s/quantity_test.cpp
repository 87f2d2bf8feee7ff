#include "model/k8s/quantity.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <limits>
#include <string>

namespace kpt::model::k8s {
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
  EXPECT_FALSE(quantity_base_units(digits).has_value());  // valid, but no meaningful size
}

TEST(QuantityBaseUnits, ValuesAreInBaseUnits) {
  EXPECT_DOUBLE_EQ(*quantity_base_units("1Gi"), 1073741824.0);
  EXPECT_DOUBLE_EQ(*quantity_base_units("100m"), 0.1);
  EXPECT_DOUBLE_EQ(*quantity_base_units("1e3"), 1000.0);
  EXPECT_DOUBLE_EQ(*quantity_base_units("2k"), 2000.0);
  EXPECT_FALSE(quantity_base_units("16GB").has_value());
}

TEST(QuantityValue, RoundsUpLikeApimachineryValue) {
  struct Case {
    const char* text;
    std::int64_t value;
  };
  const Case cases[] = {{"0", 0},
                        {"500m", 1},
                        {"1", 1},
                        {"1.5", 2},
                        {"2", 2},
                        {"1000m", 1},
                        {"1001m", 2},
                        {"0.1", 1},
                        {"4Gi", 4294967296},
                        {"1Ki", 1024},
                        {"1k", 1000},
                        {"1e3", 1000},
                        {"1E3", 1000},
                        {"1.5e1", 15},
                        {"5e-1", 1},
                        {"+2", 2},
                        {"-1.5", -1},
                        {"-500m", 0},
                        {".5", 1},
                        {"3.", 3},
                        {"100n", 1},
                        {"1u", 1},
                        {"00012", 12},
                        {"0.000m", 0},
                        {"8Ei", std::numeric_limits<std::int64_t>::max()}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(quantity_value(std::string_view(c.text)), c.value);
  }
}

TEST(QuantityValue, RejectsWhatIsNotAQuantity) {
  for (const char* text : {"", "m", "1x", "1.2.3", "1Gb", "gpu", "1e", "1e+", "--1", "1 m", "1e1000",
                           "1234567890123456789012345678901234567890123456789012345678901234567890"}) {
    SCOPED_TRACE(text);
    EXPECT_EQ(quantity_value(std::string_view(text)), std::nullopt);
  }
}

TEST(QuantityValue, ReadsJsonStringsAndNumbers) {
  EXPECT_EQ(json_quantity_value(nlohmann::json("1500m")), 2);
  EXPECT_EQ(json_quantity_value(nlohmann::json(4)), 4);
  EXPECT_EQ(json_quantity_value(nlohmann::json(0.5)), 1);
  EXPECT_EQ(json_quantity_value(nlohmann::json(true)), std::nullopt);
  EXPECT_EQ(json_quantity_value(nlohmann::json::object()), std::nullopt);
}

TEST(QuantityValue, SaturatesHugeValues) {
  EXPECT_EQ(quantity_value(std::string_view("99999999999999999999999")),
            std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(quantity_value(std::string_view("1e30")), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(quantity_value(std::string_view("-1e30")), -std::numeric_limits<std::int64_t>::max());
}

TEST(QuantityValue, PatternValidFormsWithoutAnIntegerValueHaveNone) {
  EXPECT_TRUE(is_valid_quantity("1e.5"));
  EXPECT_EQ(quantity_value(std::string_view("1e.5")), std::nullopt);
  EXPECT_NEAR(*quantity_base_units("1e.5"), 3.1622776601683795, 1e-12);
  EXPECT_EQ(quantity_value(std::string_view("99999999999999999999.5")),
            std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(quantity_value(std::string_view("0.00000000000000000000000001")), 1);
}

}  // namespace
}  // namespace kpt::model::k8s
