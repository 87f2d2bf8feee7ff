#pragma once

#include "model/trainjob/build.hpp"
#include "model/trainjob/release.hpp"
#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kpt::model::trainjob {

/// One env var of a pod with its value for that pod.
struct ResolvedEnv {
  std::string name;
  std::string value;  ///< the literal value, or what a fieldRef reads on this pod
  std::string
      source;  ///< "" for a literal, else "fieldRef metadata.annotations[...]", "secretKeyRef s/k", ...
  bool resolved =
      true;  ///< false when the value comes from a Secret, ConfigMap or resource the model cannot see
  friend bool operator==(const ResolvedEnv&, const ResolvedEnv&) = default;
};

/// One trainer pod: where it runs and the env of its `node` container in pod order.
struct NodePod {
  std::string job;            ///< the Job: `<trainjob>-node-0`
  std::int64_t index = 0;     ///< completion index k (the node rank)
  std::string generate_name;  ///< `<job>-<k>-`; the API server appends 5 random characters
  std::string hostname;       ///< `<job>-<k>`
  std::string subdomain;      ///< the headless Service
  nlohmann::json env;         ///< EnvVar objects of container `node`, JOB_COMPLETION_INDEX included
  std::vector<ResolvedEnv> resolved;
};

/// Everything `env` shows for a TrainJob under a release.
struct EnvPlan {
  BuildResult build;
  std::vector<NodePod> pods;  ///< the trainer job's pods, by index
  std::string master_addr;    ///< PET_MASTER_ADDR / the coordinator host, "" when none
  std::int64_t master_port = 0;
  std::vector<std::string> notes;  ///< explain_env's lines
};

/// Builds the JobSet, its Jobs and the trainer pods as a real cluster would, and explains the env.
/// Errors as build_jobset does (unmodelled frameworks say so).
Expected<EnvPlan> plan_env(const nlohmann::json& trainjob, const nlohmann::json& runtime,
                           TrainerRelease release);

/// Lines that explain what the program will see: torchrun (not Trainer) sets RANK, LOCAL_RANK and
/// WORLD_SIZE; world size = nnodes x nproc; what PET_NPROC_PER_NODE=auto becomes; where the master
/// address resolves; the GPU-only-in-runtime trap; what the release does differently.
std::vector<std::string> explain_env(const nlohmann::json& trainjob, const BuildResult& build,
                                     TrainerRelease release);

/// The values an env list gives on a pod (fieldRefs read from the pod's metadata).
std::vector<ResolvedEnv> resolve_env(const nlohmann::json& env, const nlohmann::json& pod);

}  // namespace kpt::model::trainjob
