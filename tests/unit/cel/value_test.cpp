#include "schema/cel/value.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace kpt::cel {
namespace {

bool eq(const Value& a, const Value& b) {
  std::uint64_t steps = 0;
  return equals(a, b, steps) == true;
}

Value map_of_size(int n) {
  MapBuilder b;
  for (int i = 0; i < n; ++i) b.add("k" + std::to_string(i), Value::int64(i));
  return std::move(b).build();
}

TEST(CelValue, ScalarsKeepTheirKindAndValue) {
  EXPECT_EQ(Value().kind(), Kind::null);
  EXPECT_TRUE(Value::boolean(true).as_bool());
  EXPECT_EQ(Value::int64(-5).as_int(), -5);
  EXPECT_EQ(Value::uint64(7).as_uint(), 7u);
  EXPECT_EQ(Value::from_double(0.5).as_double(), 0.5);
  EXPECT_EQ(Value::string("héllo").as_string(), "héllo");
  EXPECT_EQ(Value::type("int").type_name(), "type");
  EXPECT_EQ(Value::opaque("google.protobuf.Timestamp").type_name(), "google.protobuf.Timestamp");
  const Value err = Value::error("boom", ErrorKind::unsupported);
  EXPECT_TRUE(err.is_error());
  EXPECT_EQ(err.error_kind(), ErrorKind::unsupported);
  EXPECT_EQ(err.as_string(), "boom");
}

TEST(CelValue, NonContainersReadAsEmptyContainers) {
  EXPECT_TRUE(Value::int64(1).as_list().empty());
  EXPECT_EQ(Value::string("x").as_map().size(), 0u);
  EXPECT_EQ(Value::int64(1).as_string(), "");
  EXPECT_EQ(Value::list({Value::string("x")}).as_string(), "");
}

TEST(CelValue, MapFindsKeysInSmallAndIndexedMaps) {
  for (int n : {3, 8, 9, 200}) {
    SCOPED_TRACE(n);
    const Value m = map_of_size(n);
    ASSERT_EQ(m.kind(), Kind::map);
    EXPECT_EQ(m.as_map().size(), static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      const Value* v = m.as_map().find("k" + std::to_string(i));
      ASSERT_NE(v, nullptr);
      EXPECT_EQ(v->as_int(), i);
      EXPECT_NE(m.as_map().find(Value::string("k" + std::to_string(i))), nullptr);
    }
    EXPECT_EQ(m.as_map().find("k"), nullptr);
    EXPECT_EQ(m.as_map().find("zz"), nullptr);
    EXPECT_EQ(m.as_map().find(Value::int64(0)), nullptr);
    EXPECT_EQ(m.as_map().entries().front().first.as_string(), "k0");  // insertion order kept
  }
}

TEST(CelValue, MapKeysOfEveryKindFindEachOtherAcrossNumbers) {
  MapBuilder b;
  for (int i = 0; i < 12; ++i) b.add(Value::int64(i), Value::int64(i * 10));
  b.add(Value::boolean(true), Value::string("t"));
  b.add(Value::string("s"), Value::string("str"));
  b.add(Value::uint64(100), Value::string("u"));
  const Value m = std::move(b).build();
  ASSERT_EQ(m.kind(), Kind::map);
  EXPECT_EQ(m.as_map().find(Value::uint64(3))->as_int(), 30);
  EXPECT_EQ(m.as_map().find(Value::from_double(4.0))->as_int(), 40);
  EXPECT_EQ(m.as_map().find(Value::from_double(4.5)), nullptr);
  EXPECT_EQ(m.as_map().find(Value::int64(100))->as_string(), "u");
  EXPECT_EQ(m.as_map().find(Value::boolean(true))->as_string(), "t");
  EXPECT_EQ(m.as_map().find("s")->as_string(), "str");
  EXPECT_EQ(m.as_map().find(Value::list({})), nullptr);
}

TEST(CelValue, MapBuilderRejectsRepeatedAndInvalidKeys) {
  MapBuilder repeated;
  repeated.add("a", Value::int64(1));
  repeated.add("a", Value::int64(2));
  EXPECT_EQ(std::move(repeated).build().as_string(), "repeated key in map: a");
  MapBuilder numbers;
  numbers.add(Value::int64(1), Value());
  numbers.add(Value::uint64(1), Value());
  EXPECT_EQ(std::move(numbers).build().as_string(), "repeated key in map: 1");
  MapBuilder bad;
  bad.add(Value::from_double(1.5), Value());
  EXPECT_EQ(std::move(bad).build().as_string(), "unsupported key type: double");
}

TEST(CelValue, EqualityIsHeterogeneousForNumbersOnly) {
  EXPECT_TRUE(eq(Value::int64(1), Value::uint64(1)));
  EXPECT_TRUE(eq(Value::int64(1), Value::from_double(1.0)));
  EXPECT_FALSE(eq(Value::int64(-1), Value::uint64(std::numeric_limits<std::uint64_t>::max())));
  EXPECT_FALSE(
      eq(Value::int64(std::numeric_limits<std::int64_t>::max()), Value::from_double(9223372036854775807.0)));
  EXPECT_FALSE(eq(Value::from_double(NAN), Value::from_double(NAN)));
  EXPECT_FALSE(eq(Value::int64(1), Value::string("1")));
  EXPECT_FALSE(eq(Value(), Value::boolean(false)));
  EXPECT_TRUE(eq(Value::list({Value::int64(1)}), Value::list({Value::from_double(1)})));
  std::uint64_t steps = 0;
  EXPECT_EQ(equals(Value::opaque("timestamp"), Value::opaque("timestamp"), steps), std::nullopt);
  EXPECT_EQ(equals(Value::list({Value::opaque("t")}), Value::list({Value::opaque("t")}), steps),
            std::nullopt);
}

TEST(CelValue, CompareOrdersNumbersExactlyAcrossKinds) {
  EXPECT_EQ(compare(Value::int64(-1), Value::uint64(0)), -1);
  EXPECT_EQ(compare(Value::uint64(std::numeric_limits<std::uint64_t>::max()), Value::int64(0)), 1);
  EXPECT_EQ(compare(Value::int64(2), Value::from_double(1.5)), 1);
  EXPECT_EQ(compare(Value::int64(1), Value::from_double(1.5)), -1);
  EXPECT_EQ(compare(Value::int64(std::numeric_limits<std::int64_t>::max()),
                    Value::from_double(9223372036854775808.0)),
            -1);
  EXPECT_EQ(compare(Value::uint64(3), Value::from_double(-0.5)), 1);
  EXPECT_EQ(compare(Value::from_double(1e300), Value::uint64(5)), 1);
  EXPECT_EQ(compare(Value::string("a"), Value::string("b")), -1);
  EXPECT_EQ(compare(Value::boolean(true), Value::boolean(false)), 1);
  EXPECT_EQ(compare(Value::from_double(NAN), Value::int64(1)), std::nullopt);
  EXPECT_EQ(compare(Value::string("a"), Value::int64(1)), std::nullopt);
  EXPECT_EQ(compare(Value::list({}), Value::list({})), std::nullopt);
}

TEST(CelValue, FormatDoubleMatchesGoPercentG) {
  const std::vector<std::pair<double, std::string>> cases = {
      {0.0, "0"},           {-0.0, "-0"},       {1.0, "1"},
      {1.5, "1.5"},         {-2.25, "-2.25"},   {100000.0, "100000"},
      {123456.0, "123456"}, {1e6, "1e+06"},     {1234567.0, "1.234567e+06"},
      {0.0001, "0.0001"},   {0.00001, "1e-05"}, {1.5e-7, "1.5e-07"},
      {1e100, "1e+100"},    {0.1, "0.1"},       {1.0 / 3.0, "0.3333333333333333"},
      {NAN, "NaN"},         {INFINITY, "+Inf"}, {-INFINITY, "-Inf"},
  };
  for (const auto& [v, want] : cases) {
    SCOPED_TRACE(want);
    EXPECT_EQ(format_double(v), want);
  }
}

TEST(CelValue, DisplayShowsValuesAsCelGoErrorsDo) {
  EXPECT_EQ(display(Value::string("x")), "x");
  EXPECT_EQ(display(Value::int64(-3)), "-3");
  EXPECT_EQ(display(Value::uint64(3)), "3");
  EXPECT_EQ(display(Value::list({Value::int64(1), Value::string("a")})), "[1, a]");
  MapBuilder b;
  b.add("k", Value::boolean(true));
  EXPECT_EQ(display(std::move(b).build()), "{k: true}");
  EXPECT_EQ(display(Value()), "null");
  const std::string long_list = display(Value::list(std::vector<Value>(1000, Value::string("abcdef"))));
  EXPECT_EQ(long_list.size(), 203u);
  EXPECT_EQ(long_list.substr(0, 17), "[abcdef, abcdef, ");
  EXPECT_EQ(long_list.substr(200), "...");
}

TEST(CelValue, CopiesShareStorage) {
  const Value a = Value::list({Value::string(std::string(1000, 'x'))});
  const Value b = a;  // NOLINT(performance-unnecessary-copy-initialization)
  EXPECT_EQ(&a.as_list(), &b.as_list());
}

}  // namespace
}  // namespace kpt::cel
