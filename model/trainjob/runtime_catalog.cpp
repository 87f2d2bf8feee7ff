#include "model/trainjob/runtime_catalog.hpp"

#include "model/trainjob/constants.hpp"

namespace kpt::model::trainjob {

namespace detail {

std::string trainer_image(TrainerRelease release, const std::string& name) {
  return "ghcr.io/kubeflow/trainer/" + name + ":" + release.to_string();
}

nlohmann::json cluster_runtime(TrainerRelease release, const std::string& name, const char* framework,
                               nlohmann::json spec) {
  nlohmann::json labels = nlohmann::json::object();
  // v2.0.0's manifests carry no framework label; v2.0.1 added it.
  if (release >= TrainerRelease{2, 0, 1}) labels[k_label_framework] = framework;
  // v2.3.0's overlay marks the shipped runtimes as validated ahead of time.
  if (release.at_least(3)) labels[k_label_webhook_validation] = "disabled";
  nlohmann::json metadata = {{"name", name}};
  if (!labels.empty()) metadata["labels"] = labels;
  return {{"apiVersion", k_api_version},
          {"kind", k_kind_cluster_training_runtime},
          {"metadata", metadata},
          {"spec", std::move(spec)}};
}

}  // namespace detail

namespace {

using nlohmann::json;

json job_template(const std::optional<std::string>& ancestor, json pod_spec) {
  json tmpl = {{"spec", {{"template", {{"spec", std::move(pod_spec)}}}}}};
  if (ancestor) tmpl["metadata"] = {{"labels", {{k_label_ancestor, *ancestor}}}};
  return tmpl;
}

json replicated_job(const std::string& name, const std::optional<std::string>& ancestor, json pod_spec,
                    json depends_on = nullptr) {
  json job = {{"name", name}, {"template", job_template(ancestor, std::move(pod_spec))}};
  if (!depends_on.is_null()) job["dependsOn"] = std::move(depends_on);
  return job;
}

json torch_policy(TrainerRelease release) {
  // mlPolicy.torch.numProcPerNode existed until v2.1 (default auto); v2.2 made the policy empty.
  if (features_of(release).runtime_num_proc_per_node) return {{"numProcPerNode", "auto"}};
  return json::object();
}

/// kubeflow/trainer manifests/base/runtimes/torch_distributed.yaml at each tag.
json torch_distributed(TrainerRelease release) {
  json container = {{"name", k_node}, {"image", features_of(release).pytorch_image}};
  if (!release.at_least(1)) {
    // v2.0's runtime prints its PET_* env instead of training.
    container["command"] = {
        "/bin/bash", "-c",
        "echo \"Torch Distributed Runtime\"\n\necho \"--------------------------------------\"\n"
        "echo \"Torch Default Runtime Env\"\nenv | grep PET_\n\npip list\n"};
  }
  const json spec = {
      {"mlPolicy", {{"numNodes", 1}, {"torch", torch_policy(release)}}},
      {"template",
       {{"spec",
         {{"replicatedJobs",
           {replicated_job(k_node, std::string(k_ancestor_trainer), {{"containers", {container}}})}}}}}}};
  return detail::cluster_runtime(release, "torch-distributed", "torch", spec);
}

json mpi_sshd_container(const std::string& image) {
  return {{"name", k_node},
          {"image", image},
          {"securityContext", {{"runAsUser", 1000}}},
          {"command", {"/usr/sbin/sshd"}},
          {"args", {"-De", "-f", "/home/mpiuser/.sshd_config"}},
          {"readinessProbe", {{"tcpSocket", {{"port", 2222}}}, {"initialDelaySeconds", 5}}}};
}

/// The launcher's command in v2.0: it prints versions and exits.
json mpi_v20_launcher_command(const std::string& title) {
  return {"mpirun",
          "-n",
          "1",
          "bash",
          "-c",
          "echo \"" + title +
              "\"\n\necho \"--------------------------------------\"\nset -e\nmpirun --version\npython "
              "--version\npip list\n"};
}

/// deepspeed- and mlx-distributed (manifests/base/runtimes/{deepspeed,mlx}_distributed.yaml): MPI
/// with a `node` job running sshd and a `launcher` job that is the trainer.
json mpi_runtime(TrainerRelease release, const std::string& name, const char* framework,
                 const std::string& image, const std::string& title) {
  json launcher = {{"name", k_node}, {"image", image}, {"securityContext", {{"runAsUser", 1000}}}};
  if (!release.at_least(1)) launcher["command"] = mpi_v20_launcher_command(title);
  json launcher_pod = {{"containers", {launcher}}};
  json node_pod = {{"containers", {mpi_sshd_container(image)}}};
  json jobs;
  if (release.at_least(3)) {
    // v2.3 puts `node` first, makes the launcher wait for it, and sets fsGroup on both pods.
    launcher_pod["securityContext"] = {{"fsGroup", 1000}};
    node_pod["securityContext"] = {{"fsGroup", 1000}};
    jobs = {replicated_job(k_node, std::nullopt, node_pod),
            replicated_job("launcher", std::string(k_ancestor_trainer), launcher_pod,
                           json::array({{{"name", k_node}, {"status", "Ready"}}}))};
  } else {
    jobs = {replicated_job("launcher", std::string(k_ancestor_trainer), launcher_pod),
            replicated_job(k_node, std::nullopt, node_pod)};
  }
  const int nproc = release == TrainerRelease{2, 0, 0} && name == "deepspeed-distributed" ? 4 : 1;
  const json spec = {{"mlPolicy",
                      {{"numNodes", 1},
                       {"mpi",
                        {{"numProcPerNode", nproc},
                         {"mpiImplementation", "OpenMPI"},
                         {"sshAuthMountPath", "/home/mpiuser/.ssh"},
                         {"runLauncherAsNode", true}}}}},
                     {"template",
                      {{"spec",
                        {{"network", {{"publishNotReadyAddresses", true}}},
                         {"successPolicy", {{"operator", "All"}, {"targetReplicatedJobs", {"launcher"}}}},
                         {"replicatedJobs", jobs}}}}}};
  return detail::cluster_runtime(release, name, framework, spec);
}

/// v2.0's mpi-distributed (manifests/base/runtimes/mpi_distributed.yaml, removed in v2.1).
json mpi_distributed_v20(TrainerRelease release) {
  const std::string image = "mpioperator/mpi-pi:openmpi";
  json launcher = {{"name", k_node},
                   {"image", image},
                   {"securityContext", {{"runAsUser", 1000}}},
                   {"command", {"mpirun"}},
                   {"args", {"/home/mpiuser/pi"}}};
  json runtime = mpi_runtime(release, "mpi-distributed", "mpi", image, "");
  runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
         ["containers"] = json::array({launcher});  // not {launcher}: clang reads that as a copy
  // This runtime never had a framework label.
  runtime["metadata"].erase("labels");
  return runtime;
}

/// jax-distributed and xgboost-distributed (v2.2+): one trainer job, an empty framework policy.
json single_job_runtime(TrainerRelease release, const std::string& name, const char* framework,
                        const char* policy, const std::string& image) {
  const json container = {{"name", k_node}, {"image", image}};
  const json spec = {
      {"mlPolicy", {{"numNodes", 1}, {policy, json::object()}}},
      {"template",
       {{"spec",
         {{"replicatedJobs",
           {replicated_job(k_node, std::string(k_ancestor_trainer), {{"containers", {container}}})}}}}}}};
  return detail::cluster_runtime(release, name, framework, spec);
}

}  // namespace

std::vector<nlohmann::json> carried_runtimes(TrainerRelease release) {
  std::vector<json> out;
  out.push_back(mpi_runtime(release, "deepspeed-distributed", "deepspeed",
                            detail::trainer_image(release, "deepspeed-runtime"),
                            "DeepSpeed Distributed Runtime"));
  out.push_back(mpi_runtime(release, "mlx-distributed", "mlx", detail::trainer_image(release, "mlx-runtime"),
                            "MLX Distributed Runtime"));
  if (!release.at_least(1)) out.push_back(mpi_distributed_v20(release));
  out.push_back(torch_distributed(release));
  if (features_of(release).jax_xgboost) {
    out.push_back(
        single_job_runtime(release, "jax-distributed", "jax", "jax", "nvcr.io/nvidia/jax:25.10-py3"));
    out.push_back(single_job_runtime(release, "xgboost-distributed", "xgboost", "xgboost",
                                     detail::trainer_image(release, "xgboost-runtime")));
  }
  for (auto& runtime : detail::torchtune_runtimes(release)) out.push_back(std::move(runtime));
  return out;
}

std::optional<nlohmann::json> carried_runtime(TrainerRelease release, std::string_view name) {
  for (auto& runtime : carried_runtimes(release)) {
    if (runtime["metadata"]["name"] == name) return std::move(runtime);
  }
  return std::nullopt;
}

std::vector<std::string> carried_runtime_names(TrainerRelease release) {
  std::vector<std::string> names;
  for (const auto& runtime : carried_runtimes(release)) names.push_back(runtime["metadata"]["name"]);
  return names;
}

}  // namespace kpt::model::trainjob
