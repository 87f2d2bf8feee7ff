#include "plugin/follow/exit_status.hpp"

#include <gtest/gtest.h>

namespace kpt::plugin {
namespace {

struct ExitCase {
  const char* name;
  int code;
  const char* reason;
  int signal;
  const char* text;
  const char* signal_name;
  bool oom;
};

TEST(DecodeExit, NamesSignalsOomAndPlainCodes) {
  const ExitCase cases[] = {
      {"a plain failure", 1, "Error", 0, "exited with code 1", "", false},
      {"a script's own code", 3, "Error", 0, "exited with code 3", "", false},
      {"137 without a reason: SIGKILL, often the OOM killer", 137, "Error", 0,
       "killed (SIGKILL): often the out-of-memory killer (exit code 137)", "SIGKILL", false},
      {"the local node names the signal", 137, "Error", 9,
       "killed (SIGKILL): often the out-of-memory killer (exit code 137)", "SIGKILL", false},
      {"OOMKilled says so", 137, "OOMKilled", 0,
       "OOMKilled (exit code 137): the container went over its memory limit", "SIGKILL", true},
      {"139: a segmentation fault", 139, "Error", 0,
       "segmentation fault (SIGSEGV): a native crash (exit code 139)", "SIGSEGV", false},
      {"143: SIGTERM", 143, "Error", 0,
       "terminated (SIGTERM): stopped from outside, e.g. the job was deleted or failed (exit code 143)",
       "SIGTERM", false},
      {"134: SIGABRT", 134, "Error", 0,
       "aborted (SIGABRT): a native assertion or std::terminate, e.g. in NCCL or CUDA (exit code 134)",
       "SIGABRT", false},
      {"135: SIGBUS", 135, "Error", 0,
       "bus error (SIGBUS): often /dev/shm too small for the DataLoader workers (exit code 135)", "SIGBUS",
       false},
      {"a signal with no words", 128 + 40, "Error", 0, "signal 40 (exit code 168)", "signal 40", false},
      {"128 itself is no signal", 128, "Error", 0, "exited with code 128", "", false},
      {"a command that cannot start", 128, "StartError", 0, "could not start (exit code 128)", "", false},
      {"255 is past every signal", 255, "Error", 0, "exited with code 255", "", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const ExitMeaning m = decode_exit(c.code, c.reason, c.signal);
    EXPECT_EQ(m.text, c.text);
    EXPECT_EQ(m.signal, c.signal_name);
    EXPECT_EQ(m.oom, c.oom);
  }
}

TEST(SignalName, KnowsLinuxNumbersAndRefusesOthers) {
  EXPECT_EQ(signal_name(9), "SIGKILL");
  EXPECT_EQ(signal_name(15), "SIGTERM");
  EXPECT_EQ(signal_name(33), "signal 33");
  EXPECT_EQ(signal_name(0), std::nullopt);
  EXPECT_EQ(signal_name(99), std::nullopt);
}

}  // namespace
}  // namespace kpt::plugin
