#pragma once

#include "util/expected.hpp"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kpt::model::pytorchjob {

/// One entry of spec.pytorchReplicaSpecs after in-memory defaulting.
struct ReplicaSpec {
  std::string type;           ///< CamelCase key: "Master", "Worker" (other keys kept, CamelCased)
  std::string key;            ///< the key as written in the manifest
  int replicas = 1;           ///< defaulted to 1
  bool replicas_set = false;  ///< whether the manifest gave replicas
  std::string restart_policy = "OnFailure";
  int port = 23456;       ///< pytorchjob-port of the `pytorch` container, else the default
  bool port_set = false;  ///< whether the manifest gave that port
  bool has_pytorch_container = false;
  /// command + args (strings) of the `pytorch` container, else of the first: how the pod launches
  std::vector<std::string> argv;
};

/// spec.elasticPolicy after defaulting (setElasticPolicy: min and max fill each other, else Worker.replicas).
struct ElasticPolicy {
  std::optional<int> min_replicas;
  std::optional<int> max_replicas;
  std::optional<std::string> rdzv_backend;
  std::optional<std::string> rdzv_host;
  std::optional<int> rdzv_port;
  std::optional<std::string> rdzv_id;
  std::vector<std::pair<std::string, std::string>> rdzv_conf;
  bool standalone = false;
  std::optional<int> n_proc_per_node;  ///< deprecated since v1.7
  std::optional<int> max_restarts;
};

/// A typed, defaulted view of a PyTorchJob, as the operator holds it in memory.
struct JobSpec {
  std::string name;
  std::string namespace_;
  std::string uid;
  std::vector<ReplicaSpec> replica_specs;     ///< Master first, then Worker, then other keys by name
  std::optional<std::string> nproc_per_node;  ///< spec.nprocPerNode as written
  std::optional<std::string> nproc_per_node_defaulted;  ///< after v1.7+ defaulting ("auto" when applicable)
  std::optional<ElasticPolicy> elastic;

  [[nodiscard]] const ReplicaSpec* find(std::string_view type) const;
  [[nodiscard]] bool has_master() const { return find("Master") != nullptr; }
  [[nodiscard]] int total_replicas() const;  ///< N: the sum of replicas over all types
};

/// Parses and defaults a PyTorchJob object. Errors (code parse) name the field path:
/// "spec.pytorchReplicaSpecs: required", "metadata.name: required", ...
Expected<JobSpec> parse_job(const nlohmann::json& job);

}  // namespace kpt::model::pytorchjob
