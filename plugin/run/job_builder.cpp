#include "plugin/run/job_builder.hpp"

#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <charconv>

namespace kpt::plugin {

nlohmann::json build_job(const JobRequest& request) {
  using nlohmann::json;
  json container = {{"name", "pytorch"},
                    {"image", request.image},
                    {"command", request.command},
                    {"ports", json::array({{{"name", "pytorchjob-port"}, {"containerPort", 23456}}})}};
  json metadata = {{"name", request.name}};
  if (!request.ns.empty()) metadata["namespace"] = request.ns;
  const auto replica = [&](int replicas) {
    return json{{"replicas", replicas},
                {"restartPolicy", request.restart_policy},
                {"template", {{"spec", {{"containers", json::array({container})}}}}}};
  };
  json replicas = json::object();
  if (request.with_master) {
    replicas["Master"] = replica(1);
    if (request.workers > 1) replicas["Worker"] = replica(request.workers - 1);
  } else {
    replicas["Worker"] = replica(request.workers);
  }
  // None keeps every pod's logs readable after the end; with a Master the job ends when the Master
  // succeeds, so Running deletes the Workers that would keep running (lint.clean-pod-policy-none).
  json spec = {{"runPolicy",
                {{"cleanPodPolicy", request.with_master ? "Running" : "None"},
                 {"backoffLimit", request.backoff_limit}}},
               {"pytorchReplicaSpecs", std::move(replicas)}};
  if (!request.nproc_per_node.empty()) spec["nprocPerNode"] = request.nproc_per_node;
  return {{"apiVersion", "kubeflow.org/v1"}, {"kind", "PyTorchJob"}, {"metadata", metadata}, {"spec", spec}};
}

Expected<nlohmann::json> build_trainjob(const JobRequest& request) {
  using nlohmann::json;
  if (request.workers < 1) return make_error(ErrorCode::usage, "--nodes must be at least 1");
  json trainer = {{"image", request.image}, {"command", request.command}, {"numNodes", request.workers}};
  if (!request.nproc_per_node.empty()) {
    const std::string& text = request.nproc_per_node;
    int n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || n < 1) {
      return make_error(ErrorCode::usage, "--nproc-per-node must be a positive integer for a TrainJob (got " +
                                              util::quote(request.nproc_per_node) + ")");
    }
    trainer["numProcPerNode"] = n;
  }
  json metadata = {{"name", request.name}};
  if (!request.ns.empty()) metadata["namespace"] = request.ns;
  return json{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
              {"kind", "TrainJob"},
              {"metadata", metadata},
              {"spec",
               {{"runtimeRef", {{"name", request.runtime}, {"kind", "ClusterTrainingRuntime"}}},
                {"trainer", trainer}}}};
}

}  // namespace kpt::plugin
