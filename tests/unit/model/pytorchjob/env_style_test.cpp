#include "model/pytorchjob/env_style.hpp"

#include "model/pytorchjob/names.hpp"

#include <gtest/gtest.h>

namespace kpt::model::pytorchjob {
namespace {

TEST(ParseStyle, ReadsEveryStyleAndRoundTripsThroughToString) {
  struct Case {
    std::string text;
    std::string canonical;
  };
  const std::vector<Case> cases = {
      {"worker-only", "worker-only"},         {"legacy", "legacy"},          {"torchrun", "torchrun"},
      {"operator@v1.7.0", "operator@v1.7.0"}, {"v1.3.0", "operator@v1.3.0"}, {"1.9.4", "operator@v1.9.4"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    const auto style = parse_style(c.text);
    ASSERT_TRUE(style.has_value());
    EXPECT_EQ(to_string(*style), c.canonical);
    EXPECT_EQ(parse_style(to_string(*style)), style);
  }
  for (const auto& r : k_releases) {
    SCOPED_TRACE(r.to_string());
    EXPECT_EQ(parse_style(r.to_string()), (EnvStyle{StyleKind::operator_release, r}));
  }
}

TEST(ParseStyle, RefusesUnknownStylesAndReleases) {
  for (const char* text : {"", "Legacy", "worker_only", "v1.7.5", "operator@", "v2.0.0"}) {
    SCOPED_TRACE(text);
    EXPECT_EQ(parse_style(text), std::nullopt);
  }
}

TEST(ReplicaName, LowerCasesTheTypeAndReplacesSlashes) {
  EXPECT_EQ(replica_name("mnist", "Master", 0), "mnist-master-0");
  EXPECT_EQ(replica_name("mnist-dp", "Worker", 3), "mnist-dp-worker-3");
  EXPECT_EQ(replica_name("a/b", "Worker", 1), "a-b-worker-1");
  EXPECT_EQ(service_name("mnist", "worker", 2), "mnist-worker-2");
  EXPECT_EQ(k_default_port, 23456);
  EXPECT_EQ(k_port_name, "pytorchjob-port");
  EXPECT_EQ(k_container_name, "pytorch");
}

}  // namespace
}  // namespace kpt::model::pytorchjob
