#include "local/cluster_lifecycle.hpp"

#include <gtest/gtest.h>

#include <sys/auxv.h>

#include <string>

namespace kpt::local {
namespace {

TEST(SelfExecutable, IsTheLauncherOnlyWhenTheLoaderRanTheProgram) {
  struct Case {
    const char* name;
    unsigned long interpreter_base;
    std::string argv0;
    std::string want;
  };
  const Case cases[] = {
      {"run directly: the kernel mapped the interpreter", 0x7f0000000000UL, "kubectl-pytorch",
       "/proc/self/exe"},
      {"run by the archive's launcher through the bundled loader", 0, "/opt/kpt/kubectl-pytorch",
       "/opt/kpt/kubectl-pytorch"},
      {"run through the loader with no name to start it by", 0, "", "/proc/self/exe"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(self_executable(c.interpreter_base, c.argv0), c.want);
  }
}

TEST(SelfExecutable, TheTestBinaryStartedByTheKernelReExecutesProcSelfExe) {
  ASSERT_NE(::getauxval(AT_BASE), 0UL);
  EXPECT_EQ(running_executable(), "/proc/self/exe");
  EXPECT_EQ(LifecycleOptions{}.self_exe, "/proc/self/exe");
}

}  // namespace
}  // namespace kpt::local
