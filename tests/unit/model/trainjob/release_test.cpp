#include "model/trainjob/release.hpp"

#include <gtest/gtest.h>

namespace kpt::model::trainjob {
namespace {

TEST(TrainerRelease, ParsesKnownReleasesInEverySpelling) {
  EXPECT_EQ(parse_trainer_release("v2.3.0"), (TrainerRelease{2, 3, 0}));
  EXPECT_EQ(parse_trainer_release("2.0.1"), (TrainerRelease{2, 0, 1}));
  EXPECT_EQ(parse_trainer_release("trainer@v2.2.1"), (TrainerRelease{2, 2, 1}));
}

}  // namespace
}  // namespace kpt::model::trainjob
