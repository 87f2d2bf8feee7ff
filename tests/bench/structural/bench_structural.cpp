// Usage: bench_structural CRD.yaml JOBS.yaml
// Prints YAML parse and compile time of the CRD, the binary size, the load (deserialize) time
// and the structural validation time per job, in wall and CPU time (the machine may be shared).
#include "schema/structural_schema.hpp"
#include "yaml/manifest_reader.hpp"

#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}
double cpu_ms_since(std::clock_t start) {
  return 1000.0 * static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
}

std::shared_ptr<const std::string> slurp(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return std::make_shared<const std::string>(ss.str());
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kpt::schema;
  using kpt::yaml::read_manifests;
  using kpt::yaml::ReadLimits;
  if (argc != 3) {
    std::cerr << "usage: bench_structural CRD.yaml JOBS.yaml\n";
    return 2;
  }
  ReadLimits limits;
  limits.max_bytes = 64u * 1024 * 1024;
  limits.max_nodes = 20'000'000;
  const auto crd_text = slurp(argv[1]);
  auto start = Clock::now();
  const auto crd = read_manifests(argv[1], crd_text, limits);
  const double parse_ms = ms_since(start);
  if (crd.documents.empty()) {
    std::cerr << "error: no document in '" << argv[1] << "'\n";
    return 2;
  }
  start = Clock::now();
  auto set = SchemaSet::from_crd(crd.documents.front());
  const double compile_ms = ms_since(start);
  if (!set) {
    std::cerr << "error: " << set.error().message << "\n";
    return 2;
  }
  const std::string bytes = set->serialize();
  constexpr int k_loads = 1000;
  start = Clock::now();
  std::clock_t cpu = std::clock();
  for (int i = 0; i < k_loads; ++i) {
    if (!SchemaSet::deserialize(bytes)) return 1;
  }
  const double load_us = 1000.0 * ms_since(start) / k_loads;
  const double load_cpu_us = 1000.0 * cpu_ms_since(cpu) / k_loads;

  const auto jobs = read_manifests(argv[2], slurp(argv[2]));
  std::size_t validated = 0;
  std::size_t findings = 0;
  constexpr int k_rounds = 2000;
  start = Clock::now();
  cpu = std::clock();
  for (int r = 0; r < k_rounds; ++r) {
    for (const auto& doc : jobs.documents) {
      const auto* api = doc.root.find("apiVersion");
      const auto* kind = doc.root.find("kind");
      const StructuralSchema* schema =
          api != nullptr && kind != nullptr ? set->find(api->text, kind->text) : nullptr;
      if (schema == nullptr) continue;
      findings += validate_structure(doc, *schema, {}).size();
      ++validated;
    }
  }
  const double per_job_us = validated == 0 ? 0 : 1000.0 * ms_since(start) / static_cast<double>(validated);
  const double per_job_cpu_us =
      validated == 0 ? 0 : 1000.0 * cpu_ms_since(cpu) / static_cast<double>(validated);
  std::cout << "crd bytes            " << crd_text->size() << "\n"
            << "yaml parse           " << parse_ms << " ms\n"
            << "compile              " << compile_ms << " ms\n"
            << "binary size          " << bytes.size() << " bytes\n"
            << "deserialize          " << load_us << " us wall, " << load_cpu_us << " us cpu (mean of "
            << k_loads << ")\n"
            << "validate per job     " << per_job_us << " us wall, " << per_job_cpu_us << " us cpu ("
            << validated << " jobs, " << findings / k_rounds << " findings a round)\n";
  return 0;
}
