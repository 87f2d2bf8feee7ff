#include "plugin/doctor/doctor_gather.hpp"

#include "model/k8s/object_meta.hpp"
#include "schema/crd_fingerprint.hpp"
#include "util/json_access.hpp"
#include "yaml/node_json.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <initializer_list>
#include <map>
#include <set>

namespace kpt::plugin {

namespace {

using nlohmann::json;

kube::ResourceRef webhooks() {
  return {"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations",
          "ValidatingWebhookConfiguration", false};
}

bool unreachable(const Error& e) { return e.code == ErrorCode::http || e.code == ErrorCode::timeout; }

std::vector<std::pair<std::string, std::string>> labels_of(const json& obj) {
  std::vector<std::pair<std::string, std::string>> out;
  const auto meta = obj.find("metadata");
  if (meta == obj.end() || !meta->is_object()) return out;
  const auto labels = meta->find("labels");
  if (labels == meta->end() || !labels->is_object()) return out;
  for (const auto& [k, v] : labels->items()) {
    if (v.is_string()) out.emplace_back(k, v.get<std::string>());
  }
  return out;
}

/// The first container's image ("" when none); the operator Deployment has one container.
std::string image_of(const json& deployment, const std::string& preferred_container) {
  const json* containers = nullptr;
  if (auto p = json::json_pointer("/spec/template/spec/containers"); deployment.contains(p)) {
    containers = &deployment.at(p);
  }
  if (containers == nullptr || !containers->is_array() || containers->empty()) return {};
  for (const auto& c : *containers) {
    if (util::string_at(c, "name") == preferred_container && c.contains("image"))
      return util::string_at(c, "image");
  }
  return util::string_at(containers->front(), "image");
}

DeploymentInfo to_info(const json& d, const std::string& container) {
  DeploymentInfo info;
  info.state = CheckState::found;
  const auto& meta = d.value("metadata", json::object());
  info.ns = util::string_at(meta, "namespace");
  info.name = util::string_at(meta, "name");
  info.image = image_of(d, container);
  return info;
}

struct DeploymentsFound {
  DeploymentInfo training_operator;
  DeploymentInfo trainer;
  std::optional<OurController> ours;
};

using Recognise = bool (*)(std::string_view, const std::vector<std::pair<std::string, std::string>>&);

/// The first Deployment in `ns` ("" = all namespaces) with `label_selector`, else named `name` (two
/// small lists rather than every Deployment of the cluster). nullopt when there is none.
Expected<std::optional<json>> find_deployment_in(kube::ApiClient& api, const std::string& ns,
                                                 const std::string& label_selector, const std::string& name,
                                                 Recognise recognise) {
  for (const bool by_label : {true, false}) {
    kube::ListOptions opts;
    if (by_label) {
      opts.label_selector = label_selector;
    } else {
      opts.field_selector = "metadata.name=" + name;
    }
    auto list = api.list(kube::resources::deployments(), ns, opts);
    if (!list) return list.error();
    for (const auto& d : list->items) {
      if (recognise(model::k8s::meta_string(d, "name"), labels_of(d))) return std::optional<json>(d);
    }
  }
  return std::optional<json>{};
}

/// find_deployment_in all namespaces; when the user may not list them all (403, common for ML
/// engineers), in the namespaces the manifests install into, which a namespaced role may allow.
Expected<std::optional<json>> find_deployment(kube::ApiClient& api, const std::string& label_selector,
                                              const std::string& name, Recognise recognise,
                                              std::initializer_list<const char*> install_namespaces) {
  auto everywhere = find_deployment_in(api, "", label_selector, name, recognise);
  if (everywhere || !(everywhere.error().code == ErrorCode::api &&
                      (everywhere.error().http_status == 401 || everywhere.error().http_status == 403))) {
    return everywhere;
  }
  for (const char* ns : install_namespaces) {
    auto here = find_deployment_in(api, ns, label_selector, name, recognise);
    if (here && *here) return here;
  }
  return everywhere;
}

std::vector<std::string> controller_args(const json& deployment) {
  std::vector<std::string> out;
  const auto p = json::json_pointer("/spec/template/spec/containers");
  if (!deployment.contains(p) || !deployment.at(p).is_array()) return out;
  for (const auto& c : deployment.at(p)) {
    if (!c.is_object()) continue;
    for (const char* field : {"command", "args"}) {
      for (const auto& a : c.value(field, json::array()))
        if (a.is_string()) out.push_back(a.get<std::string>());
    }
  }
  return out;
}

/// kubectl-pytorch's controller: the local cluster's embedded one (its API server says so in
/// /version), else the Deployment `controller manifests` installs. nullopt when neither is seen.
std::optional<OurController> find_our_controller(kube::ApiClient& api) {
  if (auto version = api.get_raw("/version"); version && is_local_cluster_version(*version)) {
    return OurController{k_local_cluster_controller,
                         model::pytorchjob::EnvStyle{model::pytorchjob::StyleKind::worker_only,
                                                     model::pytorchjob::k_newest_release}};
  }
  auto found = find_deployment_in(api, "", "app.kubernetes.io/name=kubectl-pytorch-controller",
                                  "kubectl-pytorch-controller", &is_our_controller_deployment);
  if (!found || !*found) return std::nullopt;
  const auto& meta = (*found)->value("metadata", json::object());
  return OurController{
      "Deployment " + util::string_at(meta, "namespace") + "/" + util::string_at(meta, "name"),
      style_from_controller_args(controller_args(**found))};
}

/// The training operator's Deployment (and Trainer v2's when `with_trainer`). Fails only when the
/// cluster cannot be reached; 403 and the like become the checks' states.
Expected<DeploymentsFound> find_deployments(kube::ApiClient& api, bool with_trainer) {
  DeploymentsFound out;
  const auto fail_all = [&out](const Error& e) {
    std::string message;
    const auto state = state_of(e, message);
    out.training_operator.state = out.trainer.state = state;
    out.training_operator.message = out.trainer.message = message;
  };
  auto op = find_deployment(api, "control-plane=kubeflow-training-operator", "training-operator",
                            &is_training_operator_deployment, {"kubeflow"});
  if (!op) {
    if (unreachable(op.error())) return op.error();
    fail_all(op.error());
    return out;
  }
  if (*op) out.training_operator = to_info(**op, "training-operator");
  out.ours = find_our_controller(api);
  if (!with_trainer) return out;
  auto trainer = find_deployment(api, "app.kubernetes.io/name=trainer,app.kubernetes.io/component=manager",
                                 "kubeflow-trainer-controller-manager", &is_trainer_v2_deployment,
                                 {"kubeflow-system", "kubeflow"});
  if (!trainer) {
    out.trainer.state = state_of(trainer.error(), out.trainer.message);
  } else if (*trainer) {
    out.trainer = to_info(**trainer, "manager");
  }
  return out;
}

CrdInfo crd_info(const Expected<json>& crd) {
  CrdInfo info;
  if (!crd) {
    info.state = state_of(crd.error(), info.message);
    return info;
  }
  info.state = CheckState::found;
  const auto& meta = crd->value("metadata", json::object());
  info.resource_version = util::string_at(meta, "resourceVersion");
  info.controller_gen =
      meta.value("annotations", json::object()).value("controller-gen.kubebuilder.io/version", "");
  info.generator_releases = schema::releases_from_generator(info.controller_gen);
  if (auto p = json::json_pointer("/spec/versions"); crd->contains(p) && crd->at(p).is_array()) {
    for (const auto& v : crd->at(p)) {
      if (v.value("served", false)) info.served_versions.push_back(util::string_at(v, "name"));
    }
  }
  info.fingerprint = schema::releases_matching_crd(yaml::from_json(*crd));
  return info;
}

Expected<json> get_crd(kube::ApiClient& api) {
  return api.get(kube::resources::crds(), "", k_pytorchjob_crd);
}

CheckState read_webhook(kube::ApiClient& api, std::string& message) {
  auto hook = api.get(webhooks(), "", k_webhook_name);
  if (hook) return CheckState::found;
  return state_of(hook.error(), message);
}

Permission ask(kube::ApiClient& api, const std::string& ns, const std::string& group,
               const std::string& resource) {
  Permission p;
  p.verb = "create";
  p.resource = group.empty() ? resource : resource + "." + group;
  const json body = {{"apiVersion", "authorization.k8s.io/v1"},
                     {"kind", "SelfSubjectAccessReview"},
                     {"spec",
                      {{"resourceAttributes",
                        {{"namespace", ns}, {"verb", "create"}, {"group", group}, {"resource", resource}}}}}};
  auto review = api.post_raw("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", body);
  if (!review) {
    p.state = state_of(review.error(), p.message);
    if (p.state == CheckState::not_installed) {
      p.state = CheckState::failed;
      p.message = "the server has no SelfSubjectAccessReview API";
    }
    return p;
  }
  p.state = CheckState::found;
  const auto& status = review->value("status", json::object());
  p.allowed = status.value("allowed", false);
  p.reason = util::string_at(status, "reason");
  return p;
}

DetectionInput evidence(const DeploymentInfo& op, const CrdInfo& crd, CheckState webhook) {
  DetectionInput in;
  if (op.state == CheckState::found) in.image = match_operator_image(op.image);
  if (crd.state == CheckState::found) in.crd = crd.fingerprint;
  if (webhook == CheckState::found || webhook == CheckState::not_installed)
    in.webhook = webhook == CheckState::found;
  return in;
}

/// At most this many pods per label family: enough to see a worker-0 `job-role`, cheap on big clusters.
constexpr std::int64_t k_job_pod_sample = 50;

JobPodsInfo job_pods_info(kube::ApiClient& api) {
  JobPodsInfo info;
  std::optional<std::vector<model::pytorchjob::Release>> allowed;
  std::set<std::string> seen;  // a v1.4/v1.5 pod matches both selectors
  // v1.4+ pods carry training.kubeflow.org/replica-type; v1.3's only the old group-name.
  for (const char* selector : {"training.kubeflow.org/replica-type", "group-name=kubeflow.org"}) {
    kube::ListOptions options;
    options.label_selector = selector;
    options.limit = k_job_pod_sample;
    auto pods = api.list(kube::resources::pods(), "", options);
    if (!pods) {
      info.state = state_of(pods.error(), info.message);
      return info;
    }
    for (const auto& pod : pods->items) {
      const auto meta = pod.value("metadata", json::object());
      if (!seen.insert(util::string_at(meta, "namespace") + "/" + util::string_at(meta, "name")).second)
        continue;
      std::map<std::string, std::string> labels;
      for (auto& [key, value] : labels_of(pod)) labels.emplace(std::move(key), std::move(value));
      auto releases = releases_from_pod_labels(labels);
      if (releases.empty()) continue;  // not made by an operator (ours, or a look-alike)
      ++info.pods;
      allowed = allowed ? intersect_releases(*allowed, releases) : std::move(releases);
    }
  }
  if (info.pods != 0) {
    info.state = CheckState::found;
    info.releases = std::move(*allowed);
  }
  return info;
}

}  // namespace

CheckState state_of(const Error& e, std::string& message) {
  if (kube::is_not_found(e)) return CheckState::not_installed;
  message = e.message;
  if (e.code == ErrorCode::api && (e.http_status == 401 || e.http_status == 403))
    return CheckState::forbidden;
  return CheckState::failed;
}

const char* to_string(CheckState s) {
  switch (s) {
    case CheckState::found:
      return "found";
    case CheckState::not_installed:
      return "not installed";
    case CheckState::forbidden:
      return "not allowed to read";
    case CheckState::failed:
      return "failed";
  }
  return "failed";
}

const char* json_name(CheckState s) {
  switch (s) {
    case CheckState::found:
      return "found";
    case CheckState::not_installed:
      return "notInstalled";
    case CheckState::forbidden:
      return "forbidden";
    case CheckState::failed:
      return "failed";
  }
  return "failed";
}

Expected<DoctorReport> gather_doctor_report(kube::ApiClient& api, const std::string& server,
                                            const std::string& ns) {
  DoctorReport r;
  r.server = server;
  r.ns = ns;
  auto deployments = find_deployments(api, true);
  if (!deployments) return deployments.error();
  r.operator_deployment = std::move(deployments->training_operator);
  r.ours = deployments->ours;
  r.trainer_deployment = std::move(deployments->trainer);
  if (r.operator_deployment.state == CheckState::found)
    r.operator_image = match_operator_image(r.operator_deployment.image);
  if (r.trainer_deployment.state == CheckState::found) {
    r.trainer_version = trainer_version_from_image(r.trainer_deployment.image);
    if (r.trainer_version.empty()) {
      // v2.2+ publishes its version in a ConfigMap beside the Deployment.
      const kube::ResourceRef configmaps{"", "v1", "configmaps", "ConfigMap", true};
      auto cm = api.get(configmaps, r.trainer_deployment.ns, "kubeflow-trainer-public");
      if (cm) r.trainer_version = cm->value("data", json::object()).value("kubeflow_trainer_version", "");
    }
  }
  r.crd = crd_info(get_crd(api));
  r.webhook = read_webhook(api, r.webhook_message);

  auto crds = api.list(kube::resources::crds(), "", {});
  if (crds) {
    r.crd_list = CheckState::found;
    std::vector<std::string> names;
    for (const auto& c : crds->items) names.push_back(model::k8s::meta_string(c, "name"));
    r.add_ons = add_ons_from_crd_names(names);
  } else {
    r.crd_list = state_of(crds.error(), r.crd_list_message);
  }
  // Trainer's CRD and runtimes only where the CRD list shows Trainer, or could not be read.
  if (r.add_ons.trainer_v2 || r.crd_list != CheckState::found)
    r.trainer = gather_trainer(api, r.trainer_version);
  r.permissions.push_back(ask(api, ns, "kubeflow.org", "pytorchjobs"));
  r.permissions.push_back(ask(api, ns, "", "pods"));
  r.job_pods = job_pods_info(api);
  auto in = evidence(r.operator_deployment, r.crd, r.webhook);
  if (r.job_pods.state == CheckState::found) in.pod_labels = r.job_pods.releases;
  r.verdict = combine(in, r.ours);
  r.controller = gather_controller_health(api, r.ours && r.ours->where == k_local_cluster_controller,
                                          std::chrono::system_clock::now());
  r.problems = controller_problems(r.controller);
  if (r.crd_list == CheckState::found && r.add_ons.trainer_v2 && r.verdict.kind == Verdict::Kind::unknown &&
      r.crd.state == CheckState::not_installed) {
    r.verdict.summary =
        "no Training Operator v1; Kubeflow Trainer v2 is installed (TrainJob, not PyTorchJob)";
  }
  return r;
}

Expected<ReleaseDetection> detect_release(kube::ApiClient& api) {
  auto deployments = find_deployments(api, true);
  if (!deployments) return deployments.error();
  ReleaseDetection out;
  const auto& trainer = deployments->trainer;
  out.trainer = detected_trainer_release(gather_trainer(
      api, trainer.state == CheckState::found ? trainer_version_from_image(trainer.image) : ""));
  auto crd = get_crd(api);
  if (crd) {
    out.crd = *crd;
  } else {
    out.crd_error = crd.error();
  }
  std::string message;
  const auto webhook = read_webhook(api, message);
  auto in = evidence(deployments->training_operator, crd_info(crd), webhook);
  out.verdict = combine(in, deployments->ours);
  return out;
}

}  // namespace kpt::plugin
