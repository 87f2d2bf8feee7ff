#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kpt::plugin {

/// A container's termination in words: what `run`, `diagnose` and `status` say about an exit code.
struct ExitMeaning {
  std::string signal;  ///< "SIGKILL" when the code is 128+N for a known signal N, else empty
  std::string text;    ///< "killed (SIGKILL): often the out-of-memory killer", "exited with code 1"
  bool oom = false;    ///< the runtime says the memory limit killed it (reason OOMKilled)
};

/// The name of signal `n` ("SIGKILL" for 9), or nothing for a number no Linux signal has.
std::optional<std::string> signal_name(int n);

/// Decodes an exit code with the runtime's reason ("OOMKilled", "Error", "StartError",
/// "ContainerCannotRun") and, when the runtime gives it, the signal (the local node reports it):
/// 128+N is signal N; 137 with no OOMKilled reason is a SIGKILL that is "often the out-of-memory
/// killer", as the kernel's OOM killer sends SIGKILL to a process and no kubelet says so.
ExitMeaning decode_exit(int code, std::string_view reason = {}, int signal = 0);

}  // namespace kpt::plugin
