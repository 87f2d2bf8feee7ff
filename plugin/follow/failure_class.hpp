#pragma once

#include "plugin/follow/traceback.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kpt::plugin {

/// The failures people actually hit, each with what to do next.
enum class FailureClass {
  none,
  missing_module,      ///< ModuleNotFoundError, ImportError
  missing_file,        ///< FileNotFoundError, "can't open file"
  cuda_oom,            ///< CUDA out of memory
  host_oom,            ///< OOMKilled, MemoryError
  killed,              ///< SIGKILL with no reason: often the OOM killer
  shared_memory,       ///< /dev/shm too small for DataLoader workers (bus error)
  gpu_unavailable,     ///< no CUDA device or driver
  peer_lost,           ///< connection closed/reset by peer, NCCL/gloo aborts: usually collateral
  collective_timeout,  ///< a collective that timed out: some rank never reached it
  rendezvous_timeout,  ///< not every rank joined the rendezvous or the store
  rendezvous_closed,   ///< torchelastic closed the rendezvous: another node failed
  address_in_use,      ///< EADDRINUSE: MASTER_PORT held by another process
  env_missing,         ///< env:// init without MASTER_ADDR / RANK / WORLD_SIZE
  master_unresolved,   ///< MASTER_ADDR does not resolve
  image_pull,          ///< ErrImagePull, ImagePullBackOff, InvalidImageName
  config_error,        ///< CreateContainerConfigError: a missing ConfigMap or Secret
  start_error,         ///< the command cannot start
  unschedulable,       ///< PodScheduled=False
  gang_wait,           ///< a PodGroup not admitted: the gang scheduler waits
  controller_error,    ///< a webhook or reconcile error seen only in Events
  terminated,          ///< SIGTERM: stopped from outside (usually collateral)
  signal,              ///< another signal (SIGSEGV, SIGABRT, ...)
  exception,           ///< any other Python exception
  exit_code,           ///< a non-zero exit code and nothing else to go by
  crash_loop,          ///< the same failure again and again
  stalled,             ///< a rank silent for longer than the stall timeout
};

/// "missing-module": the class's id in JSON.
std::string_view class_id(FailureClass c);
/// "missing Python module": the class in words, for the verdict line.
std::string_view class_title(FailureClass c);

/// Whether a failure of this class usually follows another rank's (a dead peer, a closed
/// rendezvous, a stop from outside): it is collateral when another rank failed first.
bool maybe_collateral(FailureClass c);

/// What a rank's end says, read in this order: the runtime's reason (OOMKilled, StartError); the
/// exception line; a signal; the log tail's lines, newest first, that name a cause; any exception;
/// a line that tells of a lost peer; a non-zero code.
struct FailureEvidence {
  std::string exception_line;      ///< the last Python exception's last line, if any
  std::vector<std::string> lines;  ///< the log tail (launcher prefixes are ignored)
  int exit_code = 0;
  std::string reason;  ///< the container's terminated reason: OOMKilled, Error, StartError
  int signal = 0;      ///< the signal, when the runtime says (else 128+N is read from the code)
};
FailureClass classify_failure(const FailureEvidence& evidence);

/// The exception that says why a run failed: the last one of its log that is not a peer's loss
/// (a lost connection, a closed rendezvous), else the last one.
std::optional<PythonError> cause_python_error(const std::vector<std::string>& lines);

/// What `kubectl pytorch` commands in a next step look like for this job.
struct StepContext {
  std::string program = "kubectl pytorch";
  std::string job_word;        ///< "mnist" or "trainjob/mnist"
  std::string flags;           ///< " --local" or " -n ns": to reach the job with kubectl pytorch
  std::string kubectl_flags;   ///< " --kubeconfig PATH -n ns": the same with kubectl
  std::string detail;          ///< the module of missing_module, file:line of exception, signal name
  bool collateral_of = false;  ///< another rank failed first
  bool trainjob = false;
};

/// One line: what to do about a failure of this class.
std::string next_step(FailureClass c, const StepContext& ctx);

/// How to make a job that keeps failing give up: "set spec.runPolicy.backoffLimit ...".
std::string backoff_hint(bool trainjob);

/// The module a ModuleNotFoundError names ("No module named 'foo.bar'" -> "foo"), or "".
std::string missing_module_name(std::string_view exception_line);

}  // namespace kpt::plugin
