#include "plugin/follow/failure_class.hpp"

#include "tests/unit/plugin/failure_fixtures.hpp"

#include <gtest/gtest.h>

namespace kpt::plugin {
namespace {

using testing::failure_log;

FailureEvidence evidence_of(std::vector<std::string> lines, int exit_code, std::string reason = "Error",
                            int signal = 0) {
  FailureEvidence e;
  e.lines = std::move(lines);
  if (auto error = cause_python_error(e.lines)) e.exception_line = error->line;
  e.exit_code = exit_code;
  e.reason = std::move(reason);
  e.signal = signal;
  return e;
}

struct ClassCase {
  const char* name;
  FailureEvidence evidence;
  FailureClass expected;
};

TEST(ClassifyFailure, ReadsTheClassOfRealFailures) {
  const ClassCase cases[] = {
      {"an exception", evidence_of(failure_log("exception-rank1.log"), 1), FailureClass::exception},
      {"its peer, in all_reduce", evidence_of(failure_log("exception-rank0.log"), 1),
       FailureClass::peer_lost},
      {"a SIGKILLed rank (the local node reports the signal)",
       evidence_of(failure_log("sigkill-rank1.log"), 137, "Error", 9), FailureClass::killed},
      {"its peer: connection reset", evidence_of(failure_log("sigkill-rank0.log"), 1),
       FailureClass::peer_lost},
      {"a missing module", evidence_of(failure_log("import-rank0.log"), 1), FailureClass::missing_module},
      {"a SyntaxError", evidence_of(failure_log("syntax-rank0.log"), 1), FailureClass::exception},
      {"env:// without MASTER_ADDR", evidence_of(failure_log("env-missing.log"), 1),
       FailureClass::env_missing},
      {"a MASTER_ADDR that does not resolve", evidence_of(failure_log("master-unresolved.log"), 1),
       FailureClass::master_unresolved},
      {"a peer that never joined", evidence_of(failure_log("rendezvous-timeout.log"), 1),
       FailureClass::rendezvous_timeout},
      {"MASTER_PORT held by another process", evidence_of(failure_log("address-in-use.log"), 1),
       FailureClass::address_in_use},
      {"a collective a peer never reached", evidence_of(failure_log("collective-timeout-rank0.log"), 1),
       FailureClass::collective_timeout},
      {"the late peer of a timed-out collective", evidence_of(failure_log("collective-timeout-rank1.log"), 1),
       FailureClass::peer_lost},
      {"a torchrun node whose worker raised", evidence_of(failure_log("trainjob-node1.log"), 1),
       FailureClass::exception},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(class_id(classify_failure(c.evidence)), class_id(c.expected));
  }
}

TEST(ClassifyFailure, ReadsTheRuntimesReasonTheSignalAndGpuMessages) {
  // GPU failures as torch and NCCL word them (no GPU on the machines the suites run on).
  const ClassCase cases[] = {
      {"OOMKilled wins over the log",
       evidence_of({"RuntimeError: Connection reset by peer"}, 137, "OOMKilled"), FailureClass::host_oom},
      {"137 without a reason", evidence_of({"step 3"}, 137), FailureClass::killed},
      {"143: stopped from outside", evidence_of({"step 3"}, 143), FailureClass::terminated},
      {"139: a native crash", evidence_of({"step 3"}, 139), FailureClass::signal},
      {"135: bus error, /dev/shm", evidence_of({}, 135), FailureClass::shared_memory},
      {"a StartError", evidence_of({}, 128, "StartError"), FailureClass::start_error},
      {"CUDA out of memory",
       evidence_of(
           {"Traceback (most recent call last):", "  File \"/app/train.py\", line 80, in <module>",
            "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB "
            "total capacity; 13.10 GiB already allocated)"},
           1),
       FailureClass::cuda_oom},
      {"an NCCL error",
       evidence_of(
           {"Traceback (most recent call last):", "  File \"/app/train.py\", line 90, in <module>",
            "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
            "NCCLUtils.hpp:219, remote process exited or there was a network error, NCCL version 2.18.1"},
           1),
       FailureClass::peer_lost},
      {"the NCCL watchdog",
       evidence_of(
           {"[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, "
            "Timeout(ms)=600000) ran for 600054 milliseconds before timing out."},
           134),
       FailureClass::collective_timeout},
      {"no GPU on the node",
       evidence_of({"Traceback (most recent call last):", "  File \"/app/train.py\", line 5, in <module>",
                    "RuntimeError: No CUDA GPUs are available"},
                   1),
       FailureClass::gpu_unavailable},
      {"torch built without CUDA",
       evidence_of({"Traceback (most recent call last):", "  File \"/app/train.py\", line 5, in <module>",
                    "AssertionError: Torch not compiled with CUDA enabled"},
                   1),
       FailureClass::gpu_unavailable},
      {"a torchelastic rendezvous closed",
       evidence_of({"torch.distributed.elastic.rendezvous.api."
                    "RendezvousClosedError"},
                   1),
       FailureClass::rendezvous_closed},
      {"nothing but a code", evidence_of({"step 3"}, 2), FailureClass::exit_code},
      {"a success", evidence_of({"done"}, 0), FailureClass::none},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(class_id(classify_failure(c.evidence)), class_id(c.expected));
  }
}

TEST(ClassifyFailure, CollateralClassesAreTheOnesThatFollowAnotherRanksFailure) {
  for (auto c : {FailureClass::peer_lost, FailureClass::rendezvous_closed, FailureClass::collective_timeout,
                 FailureClass::rendezvous_timeout, FailureClass::terminated, FailureClass::exit_code}) {
    SCOPED_TRACE(std::string(class_id(c)));
    EXPECT_TRUE(maybe_collateral(c));
  }
  for (auto c : {FailureClass::exception, FailureClass::killed, FailureClass::missing_module,
                 FailureClass::host_oom, FailureClass::address_in_use}) {
    SCOPED_TRACE(std::string(class_id(c)));
    EXPECT_FALSE(maybe_collateral(c));
  }
}

TEST(NextStep, NamesTheModuleTheCommandsAndTheBackoffLimit) {
  StepContext step;
  step.job_word = "mnist";
  step.flags = " --local -n default";
  step.detail = "kpt_no_such_module";
  EXPECT_EQ(
      next_step(FailureClass::missing_module, step),
      "install 'kpt_no_such_module' where the pods run (the image; with --local this machine's python3), or "
      "fix the import");
  EXPECT_EQ(
      next_step(FailureClass::env_missing, step),
      "the env:// init method needs MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE: see what each pod gets "
      "with 'kubectl pytorch env mnist --local -n default'");
  step.detail = "train.py:36";
  EXPECT_EQ(next_step(FailureClass::exception, step), "fix the error at train.py:36");
  EXPECT_EQ(
      next_step(FailureClass::crash_loop, step),
      "fix the failure, then set spec.runPolicy.backoffLimit so that the job fails instead of restarting "
      "forever");
  step.trainjob = true;
  EXPECT_EQ(next_step(FailureClass::crash_loop, step),
            "fix the failure, then give the runtime's Jobs a backoffLimit (and its JobSet a "
            "failurePolicy.maxRestarts) so that the job fails instead of restarting forever");
  step.collateral_of = true;
  EXPECT_EQ(next_step(FailureClass::peer_lost, step),
            "this rank lost a peer that had failed: fix the first failure");
  EXPECT_EQ(next_step(FailureClass::none, step), "");
}

TEST(MissingModuleName, IsTheTopLevelPackage) {
  EXPECT_EQ(missing_module_name("ModuleNotFoundError: No module named 'torchvision.models'"), "torchvision");
  EXPECT_EQ(missing_module_name("ModuleNotFoundError: No module named 'kpt_no_such_module'"),
            "kpt_no_such_module");
  EXPECT_EQ(missing_module_name("ImportError: cannot import name 'x'"), "");
}

}  // namespace
}  // namespace kpt::plugin
