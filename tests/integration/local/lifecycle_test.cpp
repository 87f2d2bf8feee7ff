// The local cluster's lifecycle against the built binary's `local serve`.
#include "local/cluster_lifecycle.hpp"
#include "local/embedded_cluster.hpp"
#include "tests/support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

namespace kpt::local {
namespace {

LifecycleOptions server_only() {
  LifecycleOptions o;
  const char* bin = std::getenv("KPT_BIN");
  o.self_exe = bin != nullptr ? bin : "kubectl-pytorch";
  o.server_only = true;
  o.probe_timeout = std::chrono::milliseconds(500);
  return o;
}

bool alive(int pid) { return ::kill(pid, 0) == 0; }

TEST(ClusterLifecycle, AnEmptyStateDirectoryIsStopped) {
  kpt::testing::TempDir dir("kpt-lifecycle");
  ClusterLifecycle lifecycle(ClusterPaths::in(dir.path()), server_only());
  EXPECT_EQ(lifecycle.status().state, ClusterStatus::State::stopped);
  auto client = lifecycle.client();
  ASSERT_FALSE(client);
  EXPECT_EQ(client.error().message, "the local cluster is not running");
}

TEST(ClusterLifecycle, PidFilesOfALiveProcessWithoutTheLockAreStale) {
  kpt::testing::TempDir dir("kpt-lifecycle");
  const auto paths = ClusterPaths::in(dir.path());
  std::ofstream(paths.pid_file) << ::getpid() << "\n";  // a reused pid: alive, but no server
  std::ofstream(paths.port_file) << 1 << "\n";
  ClusterLifecycle lifecycle(paths, server_only());
  EXPECT_EQ(lifecycle.status().state, ClusterStatus::State::stopped);
  auto stopped = lifecycle.stop();
  ASSERT_TRUE(stopped) << stopped.error().message;
  EXPECT_FALSE(stopped->was_running);
  EXPECT_FALSE(std::filesystem::exists(paths.pid_file));
  EXPECT_FALSE(std::filesystem::exists(paths.port_file));
}

TEST(ClusterLifecycle, EnsureUpStartsOnceThenReusesTheServerAndStopEndsIt) {
  kpt::testing::TempDir dir("kpt-lifecycle");
  ClusterLifecycle lifecycle(ClusterPaths::in(dir.path()), server_only());
  auto first = lifecycle.ensure_up();
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_TRUE(first->started);
  EXPECT_GT(first->port, 0);
  auto second = lifecycle.ensure_up();
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_FALSE(second->started);
  EXPECT_EQ(second->pid, first->pid);
  EXPECT_EQ(second->port, first->port);
  const auto s = lifecycle.status();
  EXPECT_TRUE(s.running());
  EXPECT_EQ(s.pid, first->pid);
  auto client = lifecycle.client();
  ASSERT_TRUE(client) << client.error().message;
  auto version = (*client)->get_raw("/version");
  ASSERT_TRUE(version) << version.error().message;
  EXPECT_NE(version->find("kubectl-pytorch"), std::string::npos);

  auto stopped = lifecycle.stop();
  ASSERT_TRUE(stopped) << stopped.error().message;
  EXPECT_TRUE(stopped->was_running);
  EXPECT_EQ(stopped->pid, first->pid);
  EXPECT_FALSE(alive(first->pid));
  EXPECT_EQ(lifecycle.status().state, ClusterStatus::State::stopped);
  EXPECT_FALSE(std::filesystem::exists(lifecycle.paths().port_file));
}

TEST(ClusterLifecycle, AWedgedServerIsReplaced) {
  kpt::testing::TempDir dir("kpt-lifecycle");
  ClusterLifecycle lifecycle(ClusterPaths::in(dir.path()), server_only());
  auto first = lifecycle.ensure_up();
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_EQ(::kill(first->pid, SIGSTOP), 0);  // holds its lock and port, answers nothing
  auto second = lifecycle.ensure_up();
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_TRUE(second->started);
  EXPECT_NE(second->pid, first->pid);
  EXPECT_FALSE(alive(first->pid));
  EXPECT_TRUE(lifecycle.probe(second->port));
  ASSERT_TRUE(lifecycle.stop());
}

TEST(ClusterLifecycle, ASecondServerOnTheSameStateDirectoryIsRefused) {
  kpt::testing::TempDir dir("kpt-lifecycle");
  ClusterLifecycle lifecycle(ClusterPaths::in(dir.path()), server_only());
  auto up = lifecycle.ensure_up();
  ASSERT_TRUE(up) << up.error().message;
  ClusterOptions options;
  options.paths = lifecycle.paths();
  options.server_only = true;
  EmbeddedCluster second(options);
  auto started = second.start();
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().message, "another server (pid " + std::to_string(up->pid) +
                                         ") serves the state directory '" + dir.path() + "'");
  EXPECT_TRUE(lifecycle.probe(up->port));
  ASSERT_TRUE(lifecycle.stop());
}

TEST(ClusterLifecycle, TheWholeClusterServesThePyTorchJobCrd) {
  kpt::testing::TempDir dir("kpt-lifecycle");
  auto options = server_only();
  options.server_only = false;
  ClusterLifecycle lifecycle(ClusterPaths::in(dir.path()), options);
  auto up = lifecycle.ensure_up();
  ASSERT_TRUE(up) << up.error().message;
  auto client = lifecycle.client();
  ASSERT_TRUE(client) << client.error().message;
  auto crd = (*client)->get(kube::resources::crds(), "", "pytorchjobs.kubeflow.org");
  ASSERT_TRUE(crd) << crd.error().message;
  auto stopped = lifecycle.stop();
  ASSERT_TRUE(stopped) << stopped.error().message;
  EXPECT_FALSE(alive(up->pid));
}

}  // namespace
}  // namespace kpt::local
