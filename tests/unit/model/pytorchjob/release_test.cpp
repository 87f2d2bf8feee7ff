#include "model/pytorchjob/release.hpp"

#include <gtest/gtest.h>

namespace kpt::model::pytorchjob {
namespace {

TEST(ParseRelease, AcceptsKnownReleasesInEverySpelling) {
  EXPECT_EQ(parse_release("v1.7.0"), (Release{1, 7, 0}));
  EXPECT_EQ(parse_release("1.9.4"), (Release{1, 9, 4}));
  EXPECT_EQ(parse_release("operator@v1.8.1"), (Release{1, 8, 1}));
}

TEST(ParseRelease, RefusesUnknownOrMalformedReleases) {
  EXPECT_EQ(parse_release("v1.7.5"), std::nullopt);
  EXPECT_EQ(parse_release("v2.0.0"), std::nullopt);
  EXPECT_EQ(parse_release("v1.7"), std::nullopt);
  EXPECT_EQ(parse_release("latest"), std::nullopt);
}

TEST(Release, OrdersByVersion) {
  EXPECT_TRUE((Release{1, 9, 4}).at_least(9));
  EXPECT_FALSE((Release{1, 6, 0}).at_least(7));
  EXPECT_LT((Release{1, 8, 0}), (Release{1, 8, 1}));
}

}  // namespace
}  // namespace kpt::model::pytorchjob
