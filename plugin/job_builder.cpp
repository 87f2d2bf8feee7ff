#include "plugin/job_builder.hpp"

#include <nlohmann/json.hpp>

namespace kpt::plugin {

nlohmann::json build_job(const JobRequest& request) {
  using nlohmann::json;
  json container = {{"name", "pytorch"},
                    {"image", request.image},
                    {"command", request.command},
                    {"ports", json::array({{{"name", "pytorchjob-port"}, {"containerPort", 23456}}})}};
  json metadata = {{"name", request.name}};
  if (!request.ns.empty()) metadata["namespace"] = request.ns;
  json spec = {{"runPolicy", {{"cleanPodPolicy", "None"}}},
               {"pytorchReplicaSpecs",
                {{"Worker",
                  {{"replicas", request.workers},
                   {"restartPolicy", request.restart_policy},
                   {"template", {{"spec", {{"containers", json::array({container})}}}}}}}}}};
  if (!request.nproc_per_node.empty()) spec["nprocPerNode"] = request.nproc_per_node;
  return {{"apiVersion", "kubeflow.org/v1"}, {"kind", "PyTorchJob"}, {"metadata", metadata}, {"spec", spec}};
}

}  // namespace kpt::plugin
