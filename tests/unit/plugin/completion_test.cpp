#include "plugin/plugin.hpp"
#include "tests/support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace kpt::plugin {
namespace {

// `kubectl-pytorch __complete WORDS...` with no kubeconfig: nothing reaches a cluster.
class Complete : public ::testing::Test {
 protected:
  std::string complete(std::vector<std::string> words) {
    words.insert(words.begin(), {"kubectl-pytorch", "__complete"});
    std::istringstream in;
    std::ostringstream out;
    std::ostringstream err;
    code = run(words, {{"HOME", dir.path()}, {"KUBECONFIG", dir.file("none.yaml")}}, in, out, err);
    error = err.str();
    return out.str();
  }
  testing::TempDir dir;
  int code = -1;
  std::string error;
};

TEST_F(Complete, CommandsWithTheirDescriptions) {
  EXPECT_EQ(
      complete({"st"}),
      "status\tShow a job's state and every replica's phase, rank and exit code, or list the jobs\n:4\n");
  EXPECT_EQ(code, 0);
  EXPECT_EQ(error, "");
  EXPECT_EQ(complete({"local", "s"}), "status\tShow whether the local cluster runs\n:4\n");
}

TEST_F(Complete, FlagsOfTheCommandAndTheConnectionFlags) {
  EXPECT_EQ(complete({"logs", "--rep"}),
            "--replica\tOnly this replica, e.g. worker-1, master-0 or node-1\n:4\n");
  EXPECT_EQ(complete({"--kubec"}), "--kubeconfig\tPath to the kubeconfig file\n:4\n");
}

TEST_F(Complete, ValuesOfOutputOperatorTrainerAndDryRun) {
  EXPECT_EQ(complete({"status", "-o", ""}), "table\nwide\njson\nyaml\nname\n:4\n");
  EXPECT_EQ(complete({"--color", ""}), "auto\nalways\nnever\n:4\n");
  EXPECT_EQ(complete({"validate", "--output=js"}), "--output=json\n:4\n");
  EXPECT_EQ(complete({"env", "job.yaml", "--operator", "v1.9."}),
            "v1.9.0\nv1.9.1\nv1.9.2\nv1.9.3\nv1.9.4\n:4\n");
  EXPECT_EQ(complete({"run", "--dry-run", "s"}), "server\n:4\n");
  EXPECT_EQ(complete({"env", "--style", "operator@v1.3"}), "operator@v1.3.0\n:4\n");
}

TEST_F(Complete, FileArgumentsAreLeftToTheShellAndJobNamesNeedACluster) {
  EXPECT_EQ(complete({"validate", ""}), ":0\n");
  EXPECT_EQ(complete({"status", ""}), ":4\n");
  EXPECT_EQ(error, "");
  EXPECT_EQ(complete({"status", "mnist", ""}), ":4\n");
}

TEST(Completion, AnUnknownShellIsAUsageError) {
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(run({"kubectl-pytorch", "completion", "tcsh"}, {}, in, out, err), 2);
  EXPECT_EQ(err.str(),
            "error: completion takes one of bash, zsh or fish (or nothing, for how to set it up)\n");
  EXPECT_EQ(run({"kubectl-pytorch", "completion", "bash"}, {}, in, out, err), 0);
  EXPECT_EQ(out.str().rfind("# bash completion for kubectl-pytorch", 0), 0u);
}

}  // namespace
}  // namespace kpt::plugin
