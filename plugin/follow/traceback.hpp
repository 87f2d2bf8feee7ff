#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kpt::plugin {

/// A Python exception found in a rank's log.
struct PythonError {
  std::string line;   ///< its last line: "RuntimeError: loss is NaN at step 3"
  std::string type;   ///< "RuntimeError", "torch.distributed.DistBackendError"
  std::string where;  ///< "train.py:42": the innermost frame of the user's code (else the innermost)
};

/// A log line without what launchers put before it: torchrun's "[default1]:" (--tee) and torch
/// 2.x's "[rank1]:", and a carriage return at its end.
std::string_view strip_launcher_prefix(std::string_view line);

/// The last Python exception of a log tail: the last line of its last traceback (a SyntaxError's
/// caret block counts, as Python prints no "Traceback" header for one). torchrun's own
/// ChildFailedError only when no worker's traceback is in the tail: the worker's says why. When
/// `prefer` is given, the last traceback it accepts wins over later ones it does not: a torchrun
/// node's log holds each of its workers' tracebacks, the cause's first and its peers' after it.
std::optional<PythonError> last_python_error(const std::vector<std::string>& lines,
                                             const std::function<bool(const PythonError&)>& prefer = {});

/// The worker that failed, by torchrun's failure report (the last of a log tail): a worker killed by a
/// signal leaves no traceback, and only the report says which one died and how, behind torchrun's own
/// ChildFailedError. The report's "Root Cause" is the first failure torchrun observed, which for
/// workers that end in the same second may be a worker that only lost its peer: a worker a signal
/// other than SIGTERM ended (torchrun's own stop) comes first, else the root cause.
struct TorchrunWorkerEnd {
  int rank = -1;        ///< the global rank
  int local_rank = -1;  ///< the process's index on its node
  int exit_code = 0;    ///< the worker's exit code: negative for a signal, as Python reports it
  int signal = 0;       ///< the signal that ended it (-exit_code), else 0
};
std::optional<TorchrunWorkerEnd> torchrun_failed_worker(const std::vector<std::string>& lines);

/// torchrun's own exception (ChildFailedError): it says a worker failed, not why.
bool is_launcher_failure(const PythonError& error);

}  // namespace kpt::plugin
