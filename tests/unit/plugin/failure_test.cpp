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
