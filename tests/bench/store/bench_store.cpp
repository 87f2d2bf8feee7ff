// bench_store: writes per second of the API server's Store on its two storages, the in-memory
// revision log (tests, `local up` without a state directory) and SQLite (the local cluster: WAL,
// synchronous=NORMAL, one transaction per write), with pod-sized objects; and how long a restarted
// server takes to load a database of N objects. Each write is acknowledged only once it is stored,
// so the SQLite figures are the local cluster's real write rate.
#include "apiserver/storage.hpp"
#include "apiserver/store.hpp"

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

using namespace kpt;
using nlohmann::json;

/// A pod as our controller creates one for a PyTorchJob worker: about 1.3 KB of JSON.
json pod(const std::string& name, int generation) {
  static const json k_template = json::parse(R"({"apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "", "namespace": "default", "uid": "",
      "labels": {"training.kubeflow.org/job-name": "mnist", "training.kubeflow.org/operator-name": "pytorchjob-controller",
                 "training.kubeflow.org/replica-type": "worker", "training.kubeflow.org/replica-index": "0"},
      "ownerReferences": [{"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "name": "mnist",
                           "uid": "6f1c2d3e-0000-4000-8000-000000000001", "controller": true, "blockOwnerDeletion": true}]},
    "spec": {"restartPolicy": "OnFailure", "containers": [{"name": "pytorch", "image": "python:3.11",
      "command": ["python3", "mnist.py", "--epochs", "5"],
      "env": [{"name": "MASTER_ADDR", "value": "mnist-worker-0"}, {"name": "MASTER_PORT", "value": "23456"},
              {"name": "WORLD_SIZE", "value": "2"}, {"name": "RANK", "value": "0"},
              {"name": "PYTHONUNBUFFERED", "value": "1"}],
      "ports": [{"name": "pytorchjob-port", "containerPort": 23456, "protocol": "TCP"}]}]},
    "status": {"phase": "Pending"}})");
  json out = k_template;
  out["metadata"]["name"] = name;
  out["metadata"]["uid"] = "uid-" + name;
  out["metadata"]["generation"] = generation;
  return out;
}

/// A fresh directory for one benchmark's database, removed with it.
struct TempDir {
  TempDir() {
    char tmpl[] = "/tmp/bench-store-XXXXXX";
    path = ::mkdtemp(tmpl) != nullptr ? tmpl : "";
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  std::string path;
};

/// state.range(0): 0 the in-memory storage, 1 SQLite.
bool open_store(benchmark::State& state, apiserver::Store& store, const TempDir& dir) {
  if (state.range(0) == 0) return true;
  auto storage = apiserver::open_sqlite_storage(dir.path + "/state.db");
  if (!storage || !store.open(std::move(*storage))) {
    state.SkipWithError("cannot open the SQLite storage");
    return false;
  }
  return true;
}

void BM_Create(benchmark::State& state) {
  TempDir dir;
  apiserver::Store store;
  if (!open_store(state, store, dir)) return;
  std::int64_t i = 0;
  for (auto _ : state) {
    const std::string name = "p" + std::to_string(i++);
    auto r =
        store.mutate("pods", "default", name, [&](const auto&) -> Expected<json> { return pod(name, 1); });
    if (!r) state.SkipWithError("create failed");
  }
  state.SetItemsProcessed(i);
}
BENCHMARK(BM_Create)->ArgName("sqlite")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// The controller's and the node's steady traffic: status updates of existing pods.
void BM_Update(benchmark::State& state) {
  TempDir dir;
  apiserver::Store store;
  if (!open_store(state, store, dir)) return;
  constexpr int k_pods = 100;
  for (int p = 0; p < k_pods; ++p) {
    const std::string name = "p" + std::to_string(p);
    (void)store.mutate("pods", "default", name, [&](const auto&) -> Expected<json> { return pod(name, 1); });
  }
  std::int64_t i = 0;
  for (auto _ : state) {
    const std::string name = "p" + std::to_string(i % k_pods);
    auto r = store.mutate("pods", "default", name, [&](const std::optional<json>& current) -> Expected<json> {
      json next = *current;
      next["status"]["phase"] = (i & 1) != 0 ? "Running" : "Pending";
      return next;
    });
    if (!r) state.SkipWithError("update failed");
    ++i;
  }
  state.SetItemsProcessed(i);
}
BENCHMARK(BM_Update)->ArgName("sqlite")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// A restarted local cluster: open a database of range(0) pods and load every object and the watch
// history from it.
void BM_ReopenSqlite(benchmark::State& state) {
  TempDir dir;
  const std::string db = dir.path + "/state.db";
  {
    apiserver::Store store;
    auto storage = apiserver::open_sqlite_storage(db);
    if (!storage || !store.open(std::move(*storage))) {
      state.SkipWithError("cannot open the SQLite storage");
      return;
    }
    for (std::int64_t p = 0; p < state.range(0); ++p) {
      const std::string name = "p" + std::to_string(p);
      (void)store.mutate("pods", "default", name,
                         [&](const auto&) -> Expected<json> { return pod(name, 1); });
    }
  }
  for (auto _ : state) {
    apiserver::Store store;
    auto storage = apiserver::open_sqlite_storage(db);
    if (!storage || !store.open(std::move(*storage))) state.SkipWithError("reopen failed");
    benchmark::DoNotOptimize(store.current_rv());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ReopenSqlite)->Arg(4000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
