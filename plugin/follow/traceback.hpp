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

}  // namespace kpt::plugin
