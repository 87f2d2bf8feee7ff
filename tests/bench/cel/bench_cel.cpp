// bench_cel: the CEL evaluator on the rules Kubernetes CRDs carry. Compiling a rule (once per
// schema) and evaluating it (once per document and node), plus hostile shapes that run into the
// cost limit. Google Benchmark; not part of ctest.
#include "schema/cel/cel.hpp"

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

namespace {

using kpt::cel::MapBuilder;
using kpt::cel::Program;
using kpt::cel::Value;

Value object(std::vector<std::pair<std::string, Value>> fields) {
  MapBuilder b(true);
  for (auto& [k, v] : fields) b.add(std::move(k), std::move(v));
  return std::move(b).build();
}

const Value& trainjob_self() {
  static const Value self = object({
      {"metadata", object({{"name", Value::string("pytorch-mnist-distributed")}})},
      {"torch", object({{"numProcPerNode", Value::int64(2)}})},
  });
  return self;
}

const std::vector<std::string> k_rules = {
    "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
    "size(self.metadata.name) <= 63",
    "[has(self.torch), has(self.mpi), has(self.jax), has(self.xgboost),has(self.flux)].filter(x, x).size() "
    "<= 1",
};

void BM_Compile(benchmark::State& state) {
  const std::string& rule = k_rules[static_cast<std::size_t>(state.range(0))];
  for (auto _ : state) benchmark::DoNotOptimize(Program::compile(rule));
  state.SetLabel(rule.substr(0, 40));
}
BENCHMARK(BM_Compile)->DenseRange(0, 2);

void BM_Evaluate(benchmark::State& state) {
  const std::string& rule = k_rules[static_cast<std::size_t>(state.range(0))];
  const Program program = Program::compile(rule);
  for (auto _ : state) benchmark::DoNotOptimize(program.evaluate(trainjob_self()));
  state.SetLabel(rule.substr(0, 40));
}
BENCHMARK(BM_Evaluate)->DenseRange(0, 2);

/// self.all(x, x >= 0) over a list of N ints: the per-element cost of a macro.
void BM_AllOverList(benchmark::State& state) {
  std::vector<Value> items;
  for (int i = 0; i < state.range(0); ++i) items.push_back(Value::int64(i));
  const Value self = Value::list(std::move(items));
  const Program program = Program::compile("self.all(x, x >= 0)");
  for (auto _ : state) benchmark::DoNotOptimize(program.evaluate(self));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_AllOverList)->Arg(10)->Arg(1000);

/// matches() on one value of N bytes with the Kubernetes name pattern (a literal, compiled with the
/// rule): the per-byte cost of a match.
void BM_MatchesLongValue(benchmark::State& state) {
  const Value self = Value::string(std::string(static_cast<std::size_t>(state.range(0)), 'a') + "-1");
  const Program program = Program::compile("self.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')");
  for (auto _ : state) benchmark::DoNotOptimize(program.evaluate(self));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_MatchesLongValue)->Arg(64)->Arg(4096);

/// matches() with a pattern the document holds: compiled on every evaluation.
void BM_MatchesPatternFromTheDocument(benchmark::State& state) {
  const Value self = object({{"value", Value::string("s3://bucket/model")},
                             {"pattern", Value::string("^[A-Za-z][A-Za-z0-9+.-]*://.+$")}});
  const Program program = Program::compile("self.value.matches(self.pattern)");
  for (auto _ : state) benchmark::DoNotOptimize(program.evaluate(self));
}
BENCHMARK(BM_MatchesPatternFromTheDocument);

/// A hostile rule that the cost limit stops (1,000,000 units).
void BM_CostLimitStopsNestedMacros(benchmark::State& state) {
  std::vector<Value> items(1000, Value::int64(1));
  const Value self = Value::list(std::move(items));
  const Program program = Program::compile("self.all(x, self.all(y, self.all(z, true)))");
  for (auto _ : state) benchmark::DoNotOptimize(program.evaluate(self));
}
BENCHMARK(BM_CostLimitStopsNestedMacros);

}  // namespace

BENCHMARK_MAIN();
