#include "util/strings.hpp"

#include "util/time.hpp"

#include <gtest/gtest.h>

namespace kpt::util {
namespace {

TEST(EditDistance, CountsSingleEdits) {
  EXPECT_EQ(edit_distance("replicas", "replica", 3), 1u);
  EXPECT_EQ(edit_distance("replicas", "replicsa", 3), 2u);
  EXPECT_EQ(edit_distance("", "abc", 5), 3u);
}

TEST(EditDistance, GivesUpPastTheCap) {
  EXPECT_EQ(edit_distance("a", "abcdefghij", 2), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting", 1), 2u);
}

TEST(ClosestMatch, SuggestsTheNearestCandidate) {
  const std::vector<std::string> fields{"replicas", "restartPolicy", "template"};
  EXPECT_EQ(closest_match("replcas", fields), "replicas");
  EXPECT_EQ(closest_match("Replicas", fields), "replicas");
  EXPECT_EQ(closest_match("completelyDifferent", fields), std::nullopt);
}

TEST(ParseDuration, AcceptsKubectlStyleDurations) {
  struct Case {
    const char* text;
    std::optional<long long> ms;
  };
  const Case cases[] = {
      {"30s", 30'000},       {"5m", 300'000},       {"1h30m", 5'400'000},
      {"250ms", 250},        {"10", 10'000},        {"", std::nullopt},
      {"abc", std::nullopt}, {"-5s", std::nullopt}, {"1m30", std::nullopt},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(parse_duration_ms(c.text), c.ms);
  }
}

TEST(Quote, CutsLongValues) {
  EXPECT_EQ(quote("abc"), "'abc'");
  EXPECT_EQ(quote("abcdef", 3), "'abc...'");
}

}  // namespace
}  // namespace kpt::util
