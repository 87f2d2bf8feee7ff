#include "plugin/follow/exit_status.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace kpt::plugin {

namespace {

// What each signal a training process meets usually means; Linux numbering (x86, arm).
struct SignalInfo {
  int number;
  const char* name;
  const char* words;
};

constexpr std::array<SignalInfo, 15> k_signals{{
    {1, "SIGHUP", "hung up (SIGHUP)"},
    {2, "SIGINT", "interrupted (SIGINT)"},
    {3, "SIGQUIT", "quit (SIGQUIT)"},
    {4, "SIGILL", "illegal instruction (SIGILL): a binary built for another CPU"},
    {6, "SIGABRT", "aborted (SIGABRT): a native assertion or std::terminate, e.g. in NCCL or CUDA"},
    {7, "SIGBUS", "bus error (SIGBUS): often /dev/shm too small for the DataLoader workers"},
    {8, "SIGFPE", "arithmetic error (SIGFPE)"},
    {9, "SIGKILL", "killed (SIGKILL)"},
    {10, "SIGUSR1", "SIGUSR1"},
    {11, "SIGSEGV", "segmentation fault (SIGSEGV): a native crash"},
    {12, "SIGUSR2", "SIGUSR2"},
    {13, "SIGPIPE", "broken pipe (SIGPIPE)"},
    {14, "SIGALRM", "alarm (SIGALRM)"},
    {15, "SIGTERM", "terminated (SIGTERM): stopped from outside, e.g. the job was deleted or failed"},
    {24, "SIGXCPU", "CPU time limit (SIGXCPU)"},
}};

const SignalInfo* find_signal(int n) {
  for (const auto& s : k_signals) {
    if (s.number == n) return &s;
  }
  return nullptr;
}

}  // namespace

std::optional<std::string> signal_name(int n) {
  if (const auto* s = find_signal(n)) return std::string(s->name);
  if (n > 0 && n < 65) return fmt::format("signal {}", n);
  return std::nullopt;
}

ExitMeaning decode_exit(int code, std::string_view reason, int signal) {
  ExitMeaning m;
  if (reason == "OOMKilled") {
    m.oom = true;
    m.signal = code == 137 || signal == 9 ? "SIGKILL" : "";
    m.text = fmt::format("OOMKilled (exit code {}): the container went over its memory limit", code);
    return m;
  }
  // The local node reports the signal; a kubelet reports 128+N.
  const int sig = signal > 0 ? signal : (code > 128 && code < 128 + 65 ? code - 128 : 0);
  if (sig > 0) {
    m.signal = signal_name(sig).value_or("");
    const auto* known = find_signal(sig);
    std::string words = known != nullptr ? known->words : m.signal;
    if (sig == 9) words += ": often the out-of-memory killer";
    m.text = fmt::format("{} (exit code {})", words, code);
    return m;
  }
  if (reason == "StartError" || reason == "ContainerCannotRun") {
    m.text = fmt::format("could not start (exit code {})", code);
    return m;
  }
  m.text = fmt::format("exited with code {}", code);
  return m;
}

}  // namespace kpt::plugin
