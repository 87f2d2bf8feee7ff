#include "controller/controller_guard.hpp"

#include "controller/kind_status.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <optional>

namespace kpt::controller {

namespace {

using nlohmann::json;

/// Another controller of ours: its scope as far as its flags say, and where it runs.
struct OtherInstance : GuardScope {
  std::string where;  ///< "Deployment 'ns/name'" or "the local cluster's own controller"
};

std::string where_of(const json& deployment) {
  return util::quote(util::string_at(util::object_at(deployment, "metadata"), "namespace") + "/" +
                     util::string_at(util::object_at(deployment, "metadata"), "name"));
}

bool running(const json& deployment) {
  const auto replicas = util::int_at(util::object_at(deployment, "spec"), "replicas");
  return !replicas || *replicas != 0;
}

/// The container args and command of a Deployment's pods, in order.
std::vector<std::string> args_of(const json& deployment) {
  std::vector<std::string> out;
  for (const auto& c : util::array_at(deployment, "spec.template.spec.containers")) {
    for (const char* field : {"command", "args"}) {
      for (const auto& a : util::array_at(c, field))
        if (a.is_string()) out.push_back(a.get<std::string>());
    }
  }
  return out;
}

/// The value of a flag among `args` ("--f=v" or "--f v"; the last one wins).
std::optional<std::string> flag_value(const std::vector<std::string>& args,
                                      std::initializer_list<const char*> names) {
  std::optional<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    for (const std::string name : names) {
      if (args[i] == name && i + 1 < args.size()) out = args[i + 1];
      if (args[i].rfind(name + "=", 0) == 0) out = args[i].substr(name.size() + 1);
    }
  }
  return out;
}

bool has_flag(const std::vector<std::string>& args, const char* name) {
  for (const auto& a : args)
    if (a == name || a == std::string(name) + "=true") return true;
  return false;
}

OtherInstance instance_of(const json& deployment) {
  const auto args = args_of(deployment);
  OtherInstance o;
  o.where = "Deployment " + where_of(deployment);
  o.ns = flag_value(args, {"-n", "--namespace"}).value_or("");
  if (const auto kinds = flag_value(args, {"--kinds"})) {
    o.pytorchjobs = kinds->find("pytorchjobs") != std::string::npos;
    o.trainjobs = kinds->find("trainjobs") != std::string::npos;
  }
  if (const auto selector = flag_value(args, {"--job-selector"})) {
    if (auto parsed = model::k8s::LabelSelector::parse(*selector)) o.selector = *parsed;
  }
  o.leader_elect = !has_flag(args, "--no-leader-elect");
  o.lease_namespace = flag_value(args, {"--lease-namespace"}).value_or(o.lease_namespace);
  o.lease_name = flag_value(args, {"--lease-name"}).value_or(o.lease_name);
  return o;
}

bool namespaces_overlap(const std::string& a, const std::string& b) {
  return a.empty() || b.empty() || a == b;
}

void block(std::string& slot, const std::string& message) {
  if (slot.empty()) slot = message;
}

}  // namespace

GuardVerdict judge_controllers(const GuardScope& scope, const GuardInput& in) {
  GuardVerdict v;
  if (scope.pytorchjobs) {
    for (const auto& d : in.operator_deployments) {
      if (!running(d)) continue;
      const std::string watched = flag_value(args_of(d), {"--namespace"}).value_or("");
      if (!namespaces_overlap(watched, scope.ns)) continue;
      block(
          v.pytorchjobs,
          "a Training Operator runs (Deployment " + where_of(d) + ") and reconciles the PyTorchJobs " +
              (watched.empty() ? std::string("of every namespace") : "of namespace " + util::quote(watched)) +
              ": scale it to 0 to hand its jobs to this controller (--migrate-from operator@vX.Y.Z "
              "keeps their env), or run this controller with -n in a namespace it does not watch");
    }
  }
  if (scope.trainjobs) {
    for (const auto& d : in.trainer_deployments) {
      if (!running(d)) continue;
      block(v.trainjobs,
            "Kubeflow Trainer's controller runs (Deployment " + where_of(d) +
                ") and reconciles every TrainJob: scale it to 0 to hand its TrainJobs to this controller, or "
                "run this controller with --kinds pytorchjobs");
    }
  }
  std::vector<OtherInstance> others;
  for (const auto& d : in.our_deployments) {
    if (running(d)) others.push_back(instance_of(d));
  }
  if (in.local_cluster_controller && !scope.embedded) {
    OtherInstance local;
    local.where = "the local cluster's own controller";
    others.push_back(local);
  }
  for (const auto& o : others) {
    const bool same_lease = o.leader_elect && scope.leader_elect &&
                            o.lease_namespace == scope.lease_namespace && o.lease_name == scope.lease_name;
    if (same_lease || !namespaces_overlap(o.ns, scope.ns) || !o.selector.may_overlap(scope.selector))
      continue;
    const std::string message =
        "another kubectl-pytorch controller (" + o.where + ") reconciles these jobs under the lease " +
        util::quote(o.lease_namespace + "/" + o.lease_name) + ": run this one with --lease-namespace " +
        o.lease_namespace + " --lease-name " + o.lease_name +
        " to stand by for it, or give the two disjoint -n, --kinds or --job-selector";
    if (scope.pytorchjobs && o.pytorchjobs) block(v.pytorchjobs, message);
    if (scope.trainjobs && o.trainjobs) block(v.trainjobs, message);
  }
  return v;
}

GuardVerdict cannot_tell(const GuardScope& scope, const Error& error) {
  const std::string message =
      "cannot tell whether another controller reconciles these jobs, so none is reconciled: listing "
      "Deployments "
      "failed (" +
      error.message +
      "): grant list on deployments.apps (the manifests' ClusterRole does), or pass --skip-controller-check "
      "where no Training Operator, Trainer or other kubectl-pytorch controller runs";
  GuardVerdict v;
  if (scope.pytorchjobs) v.pytorchjobs = message;
  if (scope.trainjobs) v.trainjobs = message;
  v.transient = !is_forbidden(error);
  return v;
}

GuardVerdict check_other_controllers(kube::ApiClient& client, const GuardScope& scope) {
  GuardInput in;
  const auto read = [&](std::vector<json>& into, const std::string& labels,
                        const std::string& name) -> Expected<void> {
    std::vector<std::pair<std::string, std::string>> queries = {{labels, ""}};
    if (!name.empty()) queries.push_back({"", "metadata.name=" + name});
    for (const auto& [label_selector, field_selector] : queries) {
      kube::ListOptions opts;
      opts.label_selector = label_selector;
      opts.field_selector = field_selector;
      auto listed = client.list(kube::resources::deployments(), "", opts);
      if (!listed) return listed.error();
      for (auto& d : listed->items) {
        const std::string key = where_of(d);
        const bool seen =
            std::any_of(into.begin(), into.end(), [&](const json& e) { return where_of(e) == key; });
        if (!seen) into.push_back(std::move(d));
      }
    }
    return {};
  };
  for (auto r :
       {read(in.operator_deployments, "control-plane=kubeflow-training-operator", "training-operator"),
        read(in.trainer_deployments, "app.kubernetes.io/name=trainer,app.kubernetes.io/component=manager",
             "kubeflow-trainer-controller-manager"),
        read(in.our_deployments, "app.kubernetes.io/name=kubectl-pytorch-controller", "")}) {
    if (!r) return cannot_tell(scope, r.error());
  }
  if (auto version = client.get_raw("/version")) {
    const auto v = json::parse(*version, nullptr, false);
    const std::string git = util::string_at(v, "gitVersion");
    const std::string suffix = "+controller";
    in.local_cluster_controller =
        git.size() > suffix.size() && git.compare(git.size() - suffix.size(), suffix.size(), suffix) == 0;
  }
  return judge_controllers(scope, in);
}

}  // namespace kpt::controller
