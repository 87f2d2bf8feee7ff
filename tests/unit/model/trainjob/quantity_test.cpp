#include "model/trainjob/quantity.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <limits>

namespace kpt::model::trainjob {
namespace {

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

}  // namespace
}  // namespace kpt::model::trainjob
