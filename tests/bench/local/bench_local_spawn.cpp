// What the local node pays to start a pod's process (`true`, started and reaped) under its
// supervisor, with and without a PID namespace, and to make and drop a job's network namespace.
#include "local/job_network.hpp"
#include "local/process_runner.hpp"

#include <benchmark/benchmark.h>

#include <thread>

namespace {

using namespace kpt::local;

const IsolationSupport& support() {
  static const IsolationSupport probed = probe_isolation();
  return probed;
}

void run_true(benchmark::State& state, bool pid_namespace, bool network) {
  if ((pid_namespace || network) && !support().namespaces) {
    state.SkipWithError(("no namespaces here: " + support().unavailable).c_str());
    return;
  }
  auto runner = make_posix_runner();
  std::unique_ptr<JobNetwork> job;
  if (network) {
    auto made = JobNetwork::create(support().user_namespace, {});
    if (!made) {
      state.SkipWithError(made.error().message.c_str());
      return;
    }
    job = std::move(*made);
  }
  ProcessSpec spec;
  spec.argv = {"/bin/true"};
  spec.env = {"PATH=/usr/bin:/bin"};
  spec.log_path = "/dev/null";
  spec.pid_namespace = pid_namespace;
  spec.user_namespace = support().user_namespace;
  spec.network = job.get();
  for (auto _ : state) {
    auto started = runner->start(spec);
    if (!started) {
      state.SkipWithError(started.error().message.c_str());
      return;
    }
    while (!runner->poll(started->pid)) std::this_thread::yield();
  }
}

void BM_StartAndReapTrue(benchmark::State& state) { run_true(state, false, false); }
void BM_StartAndReapTrueInPidNamespace(benchmark::State& state) { run_true(state, true, false); }
void BM_StartAndReapTrueInJobNetworkAndPidNamespace(benchmark::State& state) { run_true(state, true, true); }

void BM_JobNetworkCreateAndDrop(benchmark::State& state) {
  if (!support().namespaces) {
    state.SkipWithError(("no namespaces here: " + support().unavailable).c_str());
    return;
  }
  for (auto _ : state) {
    auto network = JobNetwork::create(support().user_namespace, {});
    if (!network) {
      state.SkipWithError(network.error().message.c_str());
      return;
    }
  }
}

void BM_ProbeIsolation(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(probe_isolation());
}

BENCHMARK(BM_StartAndReapTrue)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StartAndReapTrueInPidNamespace)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StartAndReapTrueInJobNetworkAndPidNamespace)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_JobNetworkCreateAndDrop)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ProbeIsolation)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
