#include "plugin/build_info.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace kpt::plugin {
namespace {

TEST(ClientVersion, TextNamesTheGitVersionAndTheCommitOrSaysThereWasNone) {
  struct Case {
    const char* name;
    BuildInfo info;
    std::string want;
  };
  const std::string commit = "f5c0e4c7e1b2a3d4c5b6a7980a1b2c3d4e5f6a7b";
  const Case cases[] = {
      {"a tagged, clean tree",
       {"v0.2.0", commit, "clean"},
       "kubectl-pytorch v0.2.0\ncommit " + commit + "\n"},
      {"uncommitted changes",
       {"v0.1.0-gf5c0e4c7e1b2-dirty", commit, "dirty"},
       "kubectl-pytorch v0.1.0-gf5c0e4c7e1b2-dirty\ncommit " + commit + " with uncommitted changes\n"},
      {"a source archive without .git",
       {"v0.1.0", "", "archive"},
       "kubectl-pytorch v0.1.0\ncommit unknown: built from a tree without git history\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(client_version_text(c.info), c.want);
  }
}

TEST(ClientVersion, DocumentUsesKubectlVersionsFieldNames) {
  const auto doc = client_version_document({"v0.1.0", "", "archive"});
  EXPECT_EQ(
      doc, nlohmann::json::parse(
               R"({"clientVersion": {"gitVersion": "v0.1.0", "gitCommit": "", "gitTreeState": "archive"}})"));
}

TEST(ClientVersion, ThisBuildRecordsAVersionAndATreeState) {
  const BuildInfo info = build_info();
  EXPECT_EQ(info.git_version.rfind('v', 0), 0U) << info.git_version;
  EXPECT_TRUE(info.git_tree_state == "clean" || info.git_tree_state == "dirty" ||
              info.git_tree_state == "archive")
      << info.git_tree_state;
  EXPECT_EQ(info.git_commit.empty(), info.git_tree_state == "archive");
}

}  // namespace
}  // namespace kpt::plugin
