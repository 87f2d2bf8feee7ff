#include "plugin/follow/failure_class.hpp"

#include "plugin/follow/exit_status.hpp"
#include "plugin/follow/traceback.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <array>
#include <initializer_list>

namespace kpt::plugin {

namespace {

struct ClassInfo {
  FailureClass c;
  const char* id;
  const char* title;
};

constexpr std::array<ClassInfo, 27> k_classes{{
    {FailureClass::none, "none", "no failure"},
    {FailureClass::missing_module, "missing-module", "missing Python module"},
    {FailureClass::missing_file, "missing-file", "missing file"},
    {FailureClass::cuda_oom, "cuda-oom", "CUDA out of memory"},
    {FailureClass::host_oom, "host-oom", "out of memory"},
    {FailureClass::killed, "killed", "killed"},
    {FailureClass::shared_memory, "shared-memory", "shared memory (/dev/shm) exhausted"},
    {FailureClass::gpu_unavailable, "gpu-unavailable", "no GPU available"},
    {FailureClass::peer_lost, "peer-lost", "lost a peer (connection closed or reset)"},
    {FailureClass::collective_timeout, "collective-timeout", "collective timed out"},
    {FailureClass::rendezvous_timeout, "rendezvous-timeout", "rendezvous timed out"},
    {FailureClass::rendezvous_closed, "rendezvous-closed", "rendezvous closed"},
    {FailureClass::address_in_use, "address-in-use", "address already in use"},
    {FailureClass::env_missing, "env-missing", "distributed env missing"},
    {FailureClass::master_unresolved, "master-unresolved", "MASTER_ADDR does not resolve"},
    {FailureClass::image_pull, "image-pull", "image cannot be pulled"},
    {FailureClass::config_error, "config-error", "container config error"},
    {FailureClass::start_error, "start-error", "command cannot start"},
    {FailureClass::unschedulable, "unschedulable", "pod cannot be scheduled"},
    {FailureClass::gang_wait, "gang-wait", "gang scheduling waits"},
    {FailureClass::controller_error, "controller-error", "controller or webhook error"},
    {FailureClass::terminated, "terminated", "stopped from outside (SIGTERM)"},
    {FailureClass::signal, "signal", "killed by a signal"},
    {FailureClass::exception, "exception", "Python exception"},
    {FailureClass::exit_code, "exit-code", "non-zero exit code"},
    {FailureClass::crash_loop, "crash-loop", "crash loop"},
    {FailureClass::stalled, "stalled", "silent rank"},
}};

const ClassInfo& info(FailureClass c) {
  for (const auto& i : k_classes) {
    if (i.c == c) return i;
  }
  return k_classes.front();
}

// Text patterns, most specific first: the first class with a pattern in a line wins.
struct Pattern {
  FailureClass c;
  std::initializer_list<const char*> needles;
};

const std::array<Pattern, 13>& patterns() {
  static const std::array<Pattern, 13> k{{
      {FailureClass::missing_module, {"ModuleNotFoundError", "No module named "}},
      {FailureClass::cuda_oom, {"CUDA out of memory", "OutOfMemoryError", "CUBLAS_STATUS_ALLOC_FAILED"}},
      {FailureClass::host_oom, {"MemoryError", "Cannot allocate memory"}},
      {FailureClass::shared_memory,
       {"is killed by signal: Bus error", "unable to write to file </torch_", "/dev/shm"}},
      {FailureClass::gpu_unavailable,
       {"No CUDA GPUs are available", "Found no NVIDIA driver", "Torch not compiled with CUDA enabled",
        "NCCL backend requires CUDA", "ProcessGroupNCCL is only supported with GPUs"}},
      {FailureClass::address_in_use, {"Address already in use", "EADDRINUSE", "errno: 98"}},
      {FailureClass::env_missing, {"expected, but not set"}},
      {FailureClass::master_unresolved,
       {"Name or service not known", "Temporary failure in name resolution", "nodename nor servname"}},
      {FailureClass::rendezvous_closed, {"RendezvousClosedError"}},
      {FailureClass::rendezvous_timeout,
       {"RendezvousTimeoutError", "waiting for clients", "store_based_barrier", "client socket has timed out",
        "Socket Timeout", "DistStoreError"}},
      {FailureClass::collective_timeout,
       {"Watchdog caught collective operation timeout", "Timed out waiting",
        "milliseconds before timing out"}},
      {FailureClass::peer_lost,
       {"Connection closed by peer", "Connection reset by peer", "Broken pipe",
        "NCCL communicator was aborted", "ncclRemoteError", "ncclSystemError", "ncclInternalError",
        "NCCL error", "DistBackendError", "Connection refused", "ECONNREFUSED", "SIGABRT received"}},
      {FailureClass::missing_file,
       {"FileNotFoundError", "No such file or directory", "can't open file", "IsADirectoryError"}},
  }};
  return k;
}

bool contains(std::string_view text, const char* needle) {
  return text.find(needle) != std::string_view::npos;
}

FailureClass match(std::string_view line) {
  for (const auto& p : patterns()) {
    for (const char* n : p.needles) {
      if (contains(line, n)) return p.c;
    }
  }
  return FailureClass::none;
}

}  // namespace

std::string_view class_id(FailureClass c) { return info(c).id; }
std::string_view class_title(FailureClass c) { return info(c).title; }

bool maybe_collateral(FailureClass c) {
  return c == FailureClass::peer_lost || c == FailureClass::rendezvous_closed ||
         c == FailureClass::collective_timeout || c == FailureClass::rendezvous_timeout ||
         c == FailureClass::terminated || c == FailureClass::exit_code;
}

FailureClass classify_failure(const FailureEvidence& e) {
  if (e.reason == "OOMKilled") return FailureClass::host_oom;
  if (e.reason == "StartError" || e.reason == "ContainerCannotRun") return FailureClass::start_error;
  if (!e.exception_line.empty()) {
    const auto c = match(e.exception_line);
    // A rendezvous that timed out connecting says why only in the lines before: a name that does
    // not resolve, a port another process holds.
    if (c == FailureClass::rendezvous_timeout) {
      for (auto it = e.lines.rbegin(); it != e.lines.rend(); ++it) {
        const auto cause = match(strip_launcher_prefix(*it));
        if (cause == FailureClass::master_unresolved || cause == FailureClass::address_in_use) return cause;
      }
    }
    if (c != FailureClass::none) return c;
  }
  const int sig =
      e.signal > 0 ? e.signal : (e.exit_code > 128 && e.exit_code < 128 + 65 ? e.exit_code - 128 : 0);
  if (sig == 9) return FailureClass::killed;
  if (sig == 15) return FailureClass::terminated;
  if (sig == 7) return FailureClass::shared_memory;
  if (sig > 0) {
    // An abort says why in the lines before it (NCCL's watchdog aborts on a collective timeout, on a
    // lost peer). Another signal (SIGSEGV) is the process's own: a peer's loss in the lines before
    // is another worker's (a torchrun node's log holds them all), not why it crashed.
    for (auto it = e.lines.rbegin(); it != e.lines.rend(); ++it) {
      const auto c = match(strip_launcher_prefix(*it));
      if (c != FailureClass::none && (sig == 6 || !maybe_collateral(c))) return c;
    }
    return FailureClass::signal;
  }
  // A line that names a cause of its own counts before the exception; a lost peer's line (another
  // worker's, in a torchrun node's log) only when nothing else says why.
  FailureClass collateral = FailureClass::none;
  for (auto it = e.lines.rbegin(); it != e.lines.rend(); ++it) {
    const auto c = match(strip_launcher_prefix(*it));
    if (c == FailureClass::none) continue;
    if (!maybe_collateral(c)) return c;
    if (collateral == FailureClass::none) collateral = c;
  }
  if (!e.exception_line.empty()) return FailureClass::exception;
  if (collateral != FailureClass::none) return collateral;
  return e.exit_code != 0 ? FailureClass::exit_code : FailureClass::none;
}

std::optional<PythonError> cause_python_error(const std::vector<std::string>& lines) {
  return last_python_error(lines, [](const PythonError& e) {
    FailureEvidence evidence;
    evidence.exception_line = e.line;
    return !maybe_collateral(classify_failure(evidence));
  });
}

std::string missing_module_name(std::string_view line) {
  const auto at = line.find("No module named '");
  if (at == std::string_view::npos) return {};
  const auto start = at + 17;
  const auto end = line.find('\'', start);
  if (end == std::string_view::npos) return {};
  const std::string_view name = line.substr(start, end - start);
  return std::string(name.substr(0, name.find('.')));
}

std::string backoff_hint(bool trainjob) {
  return trainjob
             ? "give the runtime's Jobs a backoffLimit (and its JobSet a failurePolicy.maxRestarts) so that "
               "the job fails instead of restarting forever"
             : "set spec.runPolicy.backoffLimit so that the job fails instead of restarting forever";
}

std::string next_step(FailureClass c, const StepContext& x) {
  const std::string cmd = x.program + " ";
  const std::string env_cmd = cmd + "env " + x.job_word + x.flags;
  switch (c) {
    case FailureClass::none:
      return {};
    case FailureClass::missing_module:
      return fmt::format(
          "install {} where the pods run (the image; with --local this machine's python3), or "
          "fix the import",
          x.detail.empty() ? std::string("the module") : util::quote(x.detail));
    case FailureClass::missing_file:
      return "the file is not where the command looks: check the path, the container's workingDir and "
             "volumes (with --local: --workdir)";
    case FailureClass::cuda_oom:
      return "lower the batch size, or spread the model over more GPUs (more workers, gradient "
             "checkpointing)";
    case FailureClass::host_oom:
      return "raise the container's resources.limits.memory, or lower the batch size and the DataLoader's "
             "num_workers";
    case FailureClass::killed:
      return "look for the out-of-memory killer (kubectl describe node; dmesg on this machine with --local) "
             "or whoever sent SIGKILL, then raise resources.limits.memory";
    case FailureClass::shared_memory:
      return "give the pod a larger /dev/shm (an emptyDir with medium: Memory mounted there), or "
             "DataLoader(num_workers=0)";
    case FailureClass::gpu_unavailable:
      return "request GPUs (resources.limits nvidia.com/gpu) on a GPU node, or use the gloo backend on CPU";
    case FailureClass::peer_lost:
      return x.collateral_of
                 ? "this rank lost a peer that had failed: fix the first failure"
                 : "a peer process died or became unreachable: check the other ranks' logs and the "
                   "network between the pods (NCCL_DEBUG=INFO)";
    case FailureClass::collective_timeout:
      return "a rank never reached the same collective: look for a silent or failed rank (" + cmd + "logs " +
             x.job_word + x.flags + "); raise init_process_group(timeout=) only if it is slow work";
    case FailureClass::rendezvous_timeout:
      return "not every rank joined: check that all pods run and reach rank 0's MASTER_ADDR:MASTER_PORT (" +
             env_cmd + ")";
    case FailureClass::rendezvous_closed:
      return "torchrun closed the rendezvous after another node failed: fix the first failure";
    case FailureClass::address_in_use:
      return "another process holds the port (an earlier attempt still running, or another job): wait for "
             "it to exit, or use another MASTER_PORT";
    case FailureClass::env_missing:
      return "the env:// init method needs MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE: see what each pod "
             "gets with '" +
             env_cmd + "'";
    case FailureClass::master_unresolved:
      return "MASTER_ADDR does not resolve from the pod: see '" + env_cmd +
             "' and check the job's headless Services";
    case FailureClass::image_pull:
      return "check the image name and tag, and the registry's credentials (imagePullSecrets)";
    case FailureClass::config_error:
      return "a ConfigMap or Secret the pod refers to is missing: create it or fix the reference";
    case FailureClass::start_error:
      return "the command is not in the image (with --local: not on this machine's PATH): fix command[0]";
    case FailureClass::unschedulable:
      return "no node fits the pod: lower its requests or fix nodeSelector and tolerations (kubectl describe "
             "pod)";
    case FailureClass::gang_wait:
      return "the gang scheduler waits until every pod fits (minAvailable): free capacity, lower the "
             "replicas "
             "or check the queue's quota";
    case FailureClass::controller_error:
      return "the controller reported it only in Events: fix what the event says, then run the job again";
    case FailureClass::terminated:
      return x.collateral_of
                 ? "stopped after another rank failed: fix the first failure"
                 : "something stopped the process (a deletion, a preemption): see the job's events";
    case FailureClass::signal:
      return "a native crash" + (x.detail.empty() ? std::string() : " (" + x.detail + ")") +
             ": run with PYTHONFAULTHANDLER=1 to see where, and check the torch, CUDA and driver versions";
    case FailureClass::exception:
      return x.detail.empty() ? std::string("fix the exception above") : "fix the error at " + x.detail;
    case FailureClass::exit_code:
      return "see the rank's last lines: " + cmd + "logs " + x.job_word + x.flags + " --previous";
    case FailureClass::crash_loop:
      return "fix the failure, then " + backoff_hint(x.trainjob);
    case FailureClass::stalled:
      return "see where it waits (py-spy dump --pid PID) and whether a peer it waits for has failed";
  }
  return {};
}

}  // namespace kpt::plugin
