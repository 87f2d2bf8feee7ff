#include "plugin/follow/traceback.hpp"

#include "plugin/follow/failure_class.hpp"
#include "tests/unit/plugin/failure_fixtures.hpp"

#include <gtest/gtest.h>

namespace kpt::plugin {
namespace {

using testing::failure_log;

struct LogCase {
  const char* log;
  const char* line;
  const char* type;
  const char* where;
};

TEST(LastPythonError, ReadsTheExceptionOfRealLogs) {
  const LogCase cases[] = {
      {"exception-rank1.log", "RuntimeError: loss is NaN at step 3", "RuntimeError", "train.py:36"},
      // The frames of torch's own code are not where to look: the user's call is.
      {"exception-rank0.log",
       "RuntimeError: [./gloo/transport/tcp/pair.cc:598] Connection closed by peer [127.0.0.1]:16796",
       "RuntimeError", "train.py:45"},
      {"sigkill-rank0.log",
       "RuntimeError: [./gloo/transport/tcp/pair.cc:589] Read error [127.0.0.1]:56975: Connection reset by "
       "peer",
       "RuntimeError", "train.py:45"},
      {"import-rank0.log", "ModuleNotFoundError: No module named 'kpt_no_such_module'", "ModuleNotFoundError",
       "train.py:29"},
      // A SyntaxError has no "Traceback" header: its frame, the source line and a caret.
      {"syntax-rank0.log", "SyntaxError: '(' was never closed", "SyntaxError", "syntax_error.py:4"},
      {"env-missing.log",
       "ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable "
       "MASTER_ADDR expected, but not set",
       "ValueError", "<string>:1"},
      {"rendezvous-timeout.log", "RuntimeError: Socket Timeout", "RuntimeError", "<string>:1"},
      {"collective-timeout-rank0.log",
       "RuntimeError: [./gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 5000ms for recv "
       "operation to "
       "complete",
       "RuntimeError", "late_peer.py:15"},
      // torchrun's ChildFailedError comes last in a node's log: the workers' tracebacks say why.
      {"trainjob-node1.log",
       "RuntimeError: [./gloo/transport/tcp/pair.cc:598] Connection closed by peer [127.0.0.1]:52373",
       "RuntimeError", "train.py:45"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.log);
    const auto error = last_python_error(failure_log(c.log));
    ASSERT_TRUE(error.has_value());
    EXPECT_EQ(error->line, c.line);
    EXPECT_EQ(error->type, c.type);
    EXPECT_EQ(error->where, c.where);
  }
}

TEST(LastPythonError, FindsNoneInALogWithoutATraceback) {
  for (const char* log : {"sigkill-rank1.log", "hang-rank1.log"}) {
    SCOPED_TRACE(log);
    EXPECT_FALSE(last_python_error(failure_log(log)).has_value());
  }
}

TEST(CausePythonError, PrefersTheWorkersOwnExceptionToItsPeersLosses) {
  // Node 1 of a torchrun TrainJob: rank 3 raised, rank 2 then lost its peer, torchrun gave up.
  const auto error = cause_python_error(failure_log("trainjob-node1.log"));
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->line, "RuntimeError: loss is NaN at step 3");
  EXPECT_EQ(error->where, "train.py:36");
}

TEST(LastPythonError, TakesTheLastOfChainedExceptionsAndStripsLauncherPrefixes) {
  const std::vector<std::string> lines = {
      "[default1]:Traceback (most recent call last):",
      "[default1]:  File \"/app/train.py\", line 10, in load",
      "[default1]:    return cache[key]",
      "[default1]:KeyError: 'shard-3'",
      "[default1]:",
      "[default1]:During handling of the above exception, another exception occurred:",
      "[default1]:",
      "[default1]:Traceback (most recent call last):",
      "[default1]:  File \"/app/train.py\", line 12, in load",
      "[default1]:    raise RuntimeError(\"no shard\")",
      "[default1]:RuntimeError: no shard\r",
  };
  const auto error = last_python_error(lines);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->line, "RuntimeError: no shard");
  EXPECT_EQ(error->where, "train.py:12");
}

TEST(LastPythonError, FallsBackToTheLaunchersErrorAndIgnoresTextThatOnlyLooksLikeOne) {
  const std::vector<std::string> launcher = {
      "Traceback (most recent call last):",
      "  File \"/usr/bin/torchrun\", line 33, in <module>",
      "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
  };
  const auto error = last_python_error(launcher);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->type, "torch.distributed.elastic.multiprocessing.errors.ChildFailedError");
  EXPECT_EQ(error->where, "torchrun:33");
  EXPECT_FALSE(last_python_error({"Traceback (most recent call last):", "loss: 0.5 at step 3"}));
  EXPECT_FALSE(last_python_error({"Error: not a traceback"}));
}

TEST(TorchrunRootCause, NamesTheWorkerAndTheSignalOfTheLastReport) {
  const auto end = torchrun_failed_worker(failure_log("trainjob-node1-sigkill.log"));
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->rank, 1);
  EXPECT_EQ(end->local_rank, 0);
  EXPECT_EQ(end->exit_code, -9);
  EXPECT_EQ(end->signal, 9);
  const auto exited = torchrun_failed_worker({"Root Cause (first observed failure):", "[0]:",
                                              "  rank      : 3 (local_rank: 1)", "  exitcode  : 1 (pid: 7)"});
  ASSERT_TRUE(exited.has_value());
  EXPECT_EQ(exited->rank, 3);
  EXPECT_EQ(exited->local_rank, 1);
  EXPECT_EQ(exited->exit_code, 1);
  EXPECT_EQ(exited->signal, 0);
  // Both workers of a node ended in the same second: the root cause torchrun names is the one that
  // lost its peer (exit code 1); the worker SIGKILL ended is the failure.
  const auto killed = torchrun_failed_worker(failure_log("trainjob-node1-sigkill-peer-first.log"));
  ASSERT_TRUE(killed.has_value());
  EXPECT_EQ(killed->rank, 3);
  EXPECT_EQ(killed->local_rank, 1);
  EXPECT_EQ(killed->signal, 9);
  EXPECT_FALSE(torchrun_failed_worker({"Root Cause (first observed failure):", "  exitcode  : many"}));
  EXPECT_FALSE(torchrun_failed_worker({"  exitcode  : -9 (pid: 4)"}));
}

TEST(StripLauncherPrefix, RemovesTorchrunAndRankTagsOnly) {
  EXPECT_EQ(strip_launcher_prefix("[default0]:rank 0 step 1"), "rank 0 step 1");
  EXPECT_EQ(strip_launcher_prefix("[rank12]:RuntimeError: x\r"), "RuntimeError: x");
  EXPECT_EQ(strip_launcher_prefix("[worker-1 r1] hello"), "[worker-1 r1] hello");
  EXPECT_EQ(strip_launcher_prefix("[default]:x"), "[default]:x");
}

}  // namespace
}  // namespace kpt::plugin
