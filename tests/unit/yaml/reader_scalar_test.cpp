#include "tests/unit/yaml/reader_test_support.hpp"
#include "yaml/manifest_reader.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace kpt::yaml {
namespace {

using testing::describe;
using testing::read_text;

struct Case {
  const char* yaml;  ///< written after "v: "
  NodeKind kind;
  double value = 0;  ///< booleans 0/1, integers and numbers their value
  bool overflow = false;
};

// go-yaml v2 resolution, which sigs.k8s.io/yaml (and so kubectl and the API server) uses.
const Case k_cases[] = {
    {"", NodeKind::null},
    {"~", NodeKind::null},
    {"null", NodeKind::null},
    {"Null", NodeKind::null},
    {"NULL", NodeKind::null},
    {"nULL", NodeKind::string},
    {"true", NodeKind::boolean, 1},
    {"True", NodeKind::boolean, 1},
    {"TRUE", NodeKind::boolean, 1},
    {"yes", NodeKind::boolean, 1},
    {"Yes", NodeKind::boolean, 1},
    {"YES", NodeKind::boolean, 1},
    {"y", NodeKind::boolean, 1},
    {"Y", NodeKind::boolean, 1},
    {"on", NodeKind::boolean, 1},
    {"On", NodeKind::boolean, 1},
    {"ON", NodeKind::boolean, 1},
    {"false", NodeKind::boolean, 0},
    {"no", NodeKind::boolean, 0},
    {"No", NodeKind::boolean, 0},
    {"n", NodeKind::boolean, 0},
    {"N", NodeKind::boolean, 0},
    {"off", NodeKind::boolean, 0},
    {"OFF", NodeKind::boolean, 0},
    {"yES", NodeKind::string},
    {"tRUE", NodeKind::string},
    {"0", NodeKind::integer, 0},
    {"42", NodeKind::integer, 42},
    {"-7", NodeKind::integer, -7},
    {"+7", NodeKind::integer, 7},
    {"0x1F", NodeKind::integer, 31},
    {"-0x10", NodeKind::integer, -16},
    {"0o17", NodeKind::integer, 15},
    {"017", NodeKind::integer, 15},
    {"0b101", NodeKind::integer, 5},
    {"1_000_000", NodeKind::integer, 1000000},
    {"0x_ff", NodeKind::integer, 255},
    {"9223372036854775807", NodeKind::integer, 9223372036854775807.0},
    {"-9223372036854775808", NodeKind::integer, -9223372036854775808.0},
    {"9223372036854775808", NodeKind::integer, 0, true},
    {"-9223372036854775809", NodeKind::integer, 0, true},
    {"18446744073709551616", NodeKind::integer, 0, true},
    {"08", NodeKind::number, 8},
    {"1.5", NodeKind::number, 1.5},
    {"-2.", NodeKind::number, -2},
    {".5", NodeKind::number, 0.5},
    {"-.5", NodeKind::number, -0.5},
    {"1e3", NodeKind::number, 1000},
    {"6.02E+23", NodeKind::number, 6.02e23},
    {"1_0.5", NodeKind::number, 10.5},
    {".inf", NodeKind::number, std::numeric_limits<double>::infinity()},
    {"-.Inf", NodeKind::number, -std::numeric_limits<double>::infinity()},
    {"+.INF", NodeKind::number, std::numeric_limits<double>::infinity()},
    {"1e400", NodeKind::string},
    {"0x", NodeKind::string},
    {"0xG", NodeKind::string},
    {"1.2.3", NodeKind::string},
    {"2026-11-29", NodeKind::string},
    {"16Gi", NodeKind::string},
    {"_1", NodeKind::string},
    {"inf", NodeKind::string},
    {"-x", NodeKind::string},
    {"'42'", NodeKind::string},
    {"\"yes\"", NodeKind::string},
    {"|\n  5", NodeKind::string},
    {"!!str 5", NodeKind::string},
    {"!!str yes", NodeKind::string},
    {"!!int \"7\"", NodeKind::integer, 7},
    {"!!float 5", NodeKind::number, 5},
    {"!!bool \"on\"", NodeKind::boolean, 1},
    {"!!null ''", NodeKind::null},
    {"!custom 5", NodeKind::string},
    {"!!timestamp 2026-11-29", NodeKind::string},
};

TEST(ScalarResolution, ResolvesPlainQuotedAndTaggedScalarsAsGoYamlV2Does) {
  for (const auto& c : k_cases) {
    SCOPED_TRACE(c.yaml);
    const auto result = read_text(std::string("v: ") + c.yaml + "\n");
    ASSERT_TRUE(result.findings.empty()) << describe(result.findings.front());
    ASSERT_EQ(result.documents.size(), 1u);
    const auto* v = result.documents[0].root.find("v");
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->kind, c.kind) << to_string(v->kind);
    EXPECT_EQ(v->int_overflow, c.overflow);
    switch (c.kind) {
      case NodeKind::boolean:
        EXPECT_EQ(v->boolean, c.value != 0);
        break;
      case NodeKind::integer:
        if (!c.overflow) {
          EXPECT_EQ(static_cast<double>(v->integer), c.value);
        }
        break;
      case NodeKind::number:
        EXPECT_EQ(v->number, c.value);
        break;
      default:
        break;
    }
  }
}

TEST(ScalarResolution, KeepsTheSourceSpellingOfEveryScalar) {
  const auto result = read_text("a: yes\nb: 0x1F\nc: 1_000\nd: 9223372036854775808\ne: ~\nf: '  spaced '\n");
  const auto& root = result.documents.at(0).root;
  EXPECT_EQ(root.find("a")->text, "yes");
  EXPECT_EQ(root.find("b")->text, "0x1F");
  EXPECT_EQ(root.find("c")->text, "1_000");
  EXPECT_EQ(root.find("d")->text, "9223372036854775808");
  EXPECT_EQ(root.find("e")->text, "~");
  EXPECT_EQ(root.find("f")->text, "  spaced ");
  EXPECT_TRUE(root.find("f")->quoted);
  EXPECT_FALSE(root.find("a")->quoted);
}

TEST(ScalarResolution, ResolvesNotANumber) {
  const auto result = read_text("v: .NaN\n");
  const auto* v = result.documents.at(0).root.find("v");
  ASSERT_EQ(v->kind, NodeKind::number);
  EXPECT_TRUE(std::isnan(v->number));
}

TEST(ScalarResolution, ReportsATagThatDoesNotFitTheValue) {
  const auto result = read_text("spec:\n  replicas: !!int two\n");
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(
      describe(result.findings[0]),
      "job.yaml:2:13 [yaml.bad-tag] spec.replicas: cannot decode 'two' as !!int | hint: remove the tag or "
      "change the value");
  EXPECT_EQ(result.documents.at(0).root.at_path({"spec", "replicas"})->kind, NodeKind::string);
}

}  // namespace
}  // namespace kpt::yaml
