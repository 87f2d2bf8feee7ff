#include "plugin/failure.hpp"

#include "plugin/context.hpp"
#include "plugin/plugin.hpp"
#include "tests/support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace kpt::plugin {
namespace {

TEST(Failure, UsageAndIoErrorsExit2AndFailedOperationsExit1) {
  for (auto code : {ErrorCode::io, ErrorCode::parse, ErrorCode::limit, ErrorCode::usage, ErrorCode::config})
    EXPECT_EQ(exit_code_for(code), 2);
  for (auto code : {ErrorCode::invalid, ErrorCode::http, ErrorCode::api, ErrorCode::not_found,
                    ErrorCode::timeout, ErrorCode::internal})
    EXPECT_EQ(exit_code_for(code), 1);
}

TEST(Failure, FailPrintsTheMessageWithKubectlsPrefixAndReturnsTheCode) {
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  const Context ctx{in, out, err, {}, false, false, "kubectl pytorch", "", {}, 0, 0, "auto"};
  EXPECT_EQ(fail(ctx, make_error(ErrorCode::io, "reading 'job.yaml': No such file or directory")), 2);
  EXPECT_EQ(
      fail(ctx, make_error(ErrorCode::invalid, "the manifest has errors; fix them or run with --force")), 1);
  EXPECT_EQ(fail_usage(ctx, "-o must be yaml, json or name"), 2);
  EXPECT_EQ(err.str(),
            "error: reading 'job.yaml': No such file or directory\n"
            "error: the manifest has errors; fix them or run with --force\n"
            "error: -o must be yaml, json or name\n");
  EXPECT_EQ(out.str(), "");
}

// The root --help's table, rendered from k_exit_code_table (README's "Exit codes" says the same).
TEST(Failure, ExitCodesHelpIsTheTable) {
  EXPECT_EQ(exit_codes_help(),
            "Exit codes:\n"
            "  0    success (validate: no findings of error severity; run: the job succeeded)\n"
            "  1    validate: findings of error severity; other commands: the operation failed\n"
            "  2    usage or I/O error (bad flags, unreadable file, no usable kubeconfig)\n"
            "  N    run: the job failed; N is rank 0's exit code (1 when it has none)\n"
            "  124  run: --timeout reached\n"
            "  130  run: interrupted (the job keeps running unless --rm)\n");
}

// One wording of the hint, after an unknown command (kubectl's) and after a bad flag alike.
TEST(Failure, ABadFlagEndsWithTheSameHelpHintAsAnUnknownCommand) {
  EXPECT_EQ(help_hint("kubectl pytorch status"), "Run 'kubectl pytorch status --help' for usage.");
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  testing::TempDir dir;
  const int code = run({"kubectl-pytorch", "status", "--no-such-flag"},
                       {{"HOME", dir.path()}, {"KUBECONFIG", dir.file("kubeconfig")}}, in, out, err);
  EXPECT_EQ(code, 2);
  const std::string text = err.str();
  EXPECT_NE(text.find("\nRun '"), std::string::npos) << text;
  EXPECT_EQ(text.substr(text.size() - std::string(" --help' for usage.\n").size()), " --help' for usage.\n")
      << text;
}

// README's exit-code table: an I/O error is 2, for `local up` as for every command.
TEST(Failure, LocalUpExits2WhenItsStateDirectoryCannotBeCreated) {
  testing::TempDir dir;
  const std::string blocker = dir.file("a-file");
  std::ofstream(blocker) << "not a directory\n";
  const std::string state = blocker + "/state";
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  const int code = run({"kubectl-pytorch", "local", "up", "--state-dir", state},
                       {{"HOME", dir.path()}, {"KUBECONFIG", dir.file("kubeconfig")}}, in, out, err);
  EXPECT_EQ(code, 2);
  EXPECT_EQ(err.str(), "error: creating '" + state + "': Not a directory\n");
}

}  // namespace
}  // namespace kpt::plugin
