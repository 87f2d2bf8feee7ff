// Reader throughput on a generated multi-document YAML of realistic PyTorchJobs
// (Master + Workers, full pod templates). Run: bench_reader --benchmark_counters_tabular=true
#include "yaml/manifest_reader.hpp"

#include <benchmark/benchmark.h>

#include <memory>
#include <string>

namespace {

std::string job(int i) {
  const auto n = std::to_string(i);
  std::string replica;
  std::string out = "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: job-" + n +
                    "\n  namespace: team-a\n  labels:\n    app.kubernetes.io/name: job-" + n +
                    "\n    team: ml\nspec:\n  runPolicy:\n    cleanPodPolicy: None\n    backoffLimit: 3\n"
                    "  pytorchReplicaSpecs:\n";
  for (const char* role : {"Master", "Worker"}) {
    out += std::string("    ") + role + ":\n      replicas: " + (role[0] == 'M' ? "1" : "4") +
           "\n      restartPolicy: OnFailure\n      template:\n        metadata:\n          annotations:\n"
           "            sidecar.istio.io/inject: \"false\"\n        spec:\n          containers:\n"
           "          - name: pytorch\n            image: registry.example.com/train:1." +
           n +
           "\n            imagePullPolicy: IfNotPresent\n            command: [\"torchrun\", "
           "\"--nproc-per-node=8\","
           " \"train.py\"]\n            args:\n            - --epochs=10\n            - --lr=0.001\n"
           "            env:\n            - name: NCCL_DEBUG\n              value: INFO\n"
           "            - name: PYTHONUNBUFFERED\n              value: \"1\"\n            ports:\n"
           "            - containerPort: 23456\n              name: pytorchjob-port\n            resources:\n"
           "              limits:\n                nvidia.com/gpu: 8\n                memory: 64Gi\n"
           "              requests:\n                cpu: \"16\"\n                memory: 64Gi\n"
           "            volumeMounts:\n            - name: dshm\n              mountPath: /dev/shm\n"
           "          volumes:\n          - name: dshm\n            emptyDir: {medium: Memory}\n";
  }
  return out;
}

void BM_ReadJobs(benchmark::State& state) {
  const auto count = static_cast<int>(state.range(0));
  auto text = std::make_shared<std::string>();
  for (int i = 0; i < count; ++i) *text += (i == 0 ? "" : "---\n") + job(i);
  const std::shared_ptr<const std::string> shared = text;
  for (auto _ : state) {
    auto result = kpt::yaml::read_manifests("jobs.yaml", shared);
    if (result.documents.size() != static_cast<std::size_t>(count))
      state.SkipWithError("wrong document count");
    benchmark::DoNotOptimize(result);
  }
  state.counters["docs/s"] = benchmark::Counter(
      static_cast<double>(count) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.SetBytesProcessed(static_cast<std::int64_t>(text->size()) * state.iterations());
}
BENCHMARK(BM_ReadJobs)->Arg(2000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
