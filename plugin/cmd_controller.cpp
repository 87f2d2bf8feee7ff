#include "controller/controller_main.hpp"
#include "controller/logger.hpp"
#include "controller/manifests.hpp"
#include "kube/api_client.hpp"
#include "kube/resolved_config.hpp"
#include "model/job_ownership.hpp"
#include "model/k8s/label_selector.hpp"
#include "model/k8s/object_meta.hpp"
#include "model/pytorchjob/env_style.hpp"
#include "model/pytorchjob/gang.hpp"
#include "model/trainjob/status_request.hpp"
#include "plugin/build_info.hpp"
#include "plugin/cluster_client.hpp"
#include "plugin/commands.hpp"
#include "plugin/context.hpp"
#include "plugin/controller_client.hpp"
#include "plugin/controller_status_tls.hpp"
#include "plugin/failure.hpp"
#include "plugin/plugin.hpp"
#include "plugin/version.hpp"
#include "schema/carried/carried_crds.hpp"
#include "util/file_io.hpp"
#include "util/messages.hpp"
#include "util/strings.hpp"

#include <CLI/CLI.hpp>

#include <pthread.h>
#include <unistd.h>

#include <csignal>
#include <ostream>
#include <thread>

namespace kpt::plugin {

namespace {

struct ControllerFlags {
  std::string env_style = "worker-only";
  int workers = 2;
  bool leader_elect = true;
  std::string lease_name = "kubectl-pytorch-controller";
  std::string lease_namespace = "default";
  std::string lease_duration = "15s";
  std::string renew_deadline = "10s";
  std::string retry_period = "2s";
  std::string metrics_addr = ":8080";
  std::string log_format = "text";
  std::string managed_by;  ///< gone: its values are ones the real webhooks reject (kept to say so)
  std::string job_selector;
  std::string migrate_from;
  bool skip_controller_check = false;
  std::string resync = "5m";
  bool no_events = false;
  std::string gang_scheduler;
  std::string kinds;  ///< empty: both, TrainJobs only where the API server serves them
  std::string image = std::string("ghcr.io/kubectl-pytorch/kubectl-pytorch:") + k_version;
  bool trainer = false;     ///< manifests: the Trainer v2 CRDs and RBAC too
  bool via_jobset = false;  ///< TrainJobs into JobSets (run), its RBAC and flag (manifests)
  bool skip_crds = false;   ///< manifests: no CRDs
  bool runtimes = false;    ///< manifests: Trainer's default runtimes only
  std::string feature_gates;
  int status_port = 10443;
  std::string status_host;  ///< empty: kubectl-pytorch-controller.<its namespace>.svc
  std::string status_cert_dir;
  std::string status_secret = "kubectl-pytorch-controller-status-cert";
};

/// Warns on stderr about each CRD the manifests would replace that another installer put in the
/// cluster (no app.kubernetes.io/name=kubectl-pytorch-controller label): only where a kubeconfig (or
/// the local cluster) gives a cluster to ask, and silently nothing when it cannot be asked.
void warn_foreign_crds(Context& ctx, const controller::ManifestOptions& options) {
  if (options.skip_crds) return;
  auto api = connect_best_effort(ctx);
  if (!api) return;
  std::vector<std::string> names = {"pytorchjobs.kubeflow.org"};
  if (options.trainer) {
    for (const auto& crd : schema::trainer_crds()) names.push_back(model::k8s::meta_string(crd, "name"));
  }
  for (const auto& name : names) {
    auto crd = (*api)->get(kube::resources::crds(), "", name);
    if (!crd && kube::is_not_found(crd.error())) continue;
    if (!crd) return;  // unreachable or not allowed: one look, not one timeout per CRD
    const auto owner = model::k8s::label_of(*crd, "app.kubernetes.io/name");
    if (owner == "kubectl-pytorch-controller") continue;
    util::print_warning(ctx.err, "the cluster has the CRD " + util::quote(name) +
                                     " from another installer; applying these manifests replaces it (and its "
                                     "descriptions): print them with --skip-crds to keep it");
  }
}

/// The controller's own namespace when it runs in a pod (its service account's), else "".
std::string pod_namespace() {
  auto ns = util::read_file(std::string(kube::k_service_account_dir) + "/namespace");
  return ns ? std::string(*ns) : std::string();
}

/// "15s", "2m", "1h" or plain seconds.
std::optional<std::chrono::seconds> parse_seconds(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::size_t used = 0;
  long n = 0;
  try {
    n = std::stol(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const auto unit = text.substr(used);
  if (n < 0) return std::nullopt;
  if (unit.empty() || unit == "s") return std::chrono::seconds{n};
  if (unit == "m") return std::chrono::minutes{n};
  if (unit == "h") return std::chrono::hours{n};
  return std::nullopt;
}

/// Runs the controller until SIGTERM/SIGINT. Both signals are blocked in every thread and
/// taken by one sigwait thread, so no handler and no global flag are needed.
int run(Context& ctx, const ControllerFlags& f) {
  controller::ControllerConfig config;
  const auto style = model::pytorchjob::parse_style(f.env_style);
  if (!style) {
    return fail_usage(ctx, "unknown env style " + util::quote(f.env_style) + ": known styles are " +
                               model::pytorchjob::known_styles_list());
  }
  config.reconciler.style = *style;
  if (!f.managed_by.empty()) {
    return fail_usage(
        ctx,
        "--managed-by is gone: the Training Operator's and Trainer's webhooks accept no managedBy but "
        "their own and MultiKueue's; label the jobs " +
            std::string(model::k_controller_label) + "=NAME and run --job-selector " +
            model::k_controller_label + "=NAME (docs/controller.md)");
  }
  auto selector = model::k8s::LabelSelector::parse(f.job_selector);
  if (!selector) return fail_usage(ctx, "--job-selector: " + selector.error().message);
  config.reconciler.job_selector = *selector;
  if (!f.migrate_from.empty()) {
    const auto from = model::pytorchjob::parse_style(f.migrate_from);
    if (!from || !from->is_operator()) {
      return fail_usage(ctx,
                        "--migrate-from takes the Training Operator release whose jobs this controller takes "
                        "over, such as 'operator@v1.9.4'");
    }
    config.reconciler.migrate_from = *from;
  }
  config.skip_controller_check = f.skip_controller_check;
  config.version = build_info().git_version;
  config.revision = build_info().git_commit;
  config.reconciler.emit_events = !f.no_events;
  config.reconciler.gang = model::pytorchjob::parse_gang_scheduler(f.gang_scheduler);
  if (!f.kinds.empty()) {
    const auto kinds = controller::parse_kinds(f.kinds);
    if (!kinds) {
      return fail_usage(ctx, "unknown --kinds " + util::quote(f.kinds) +
                                 ": use pytorchjobs, trainjobs or both (comma-separated)");
    }
    config.kinds = *kinds;
  }
  config.trainjob.emit_events = !f.no_events;
  config.trainjob.via_jobset = f.via_jobset;
  config.namespace_ = ctx.connection.namespace_;
  config.workers = f.workers;
  config.leader_elect = f.leader_elect;
  config.metrics_addr = f.metrics_addr;
  if (f.log_format != "text" && f.log_format != "json") {
    return fail_usage(ctx, "unknown log format " + util::quote(f.log_format) + ": use 'text' or 'json'");
  }
  const auto resync = parse_seconds(f.resync);
  const auto lease = parse_seconds(f.lease_duration);
  const auto renew = parse_seconds(f.renew_deadline);
  const auto retry = parse_seconds(f.retry_period);
  if (!resync || !lease || !renew || !retry) {
    return fail_usage(ctx, "durations take a number and a unit, such as '15s', '2m' or '1h'");
  }
  config.resync = *resync;
  config.lease.name = f.lease_name;
  config.lease.namespace_ = f.lease_namespace;
  config.lease.lease_duration = *lease;
  config.lease.renew_deadline = *renew;
  config.lease.retry_period = *retry;
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  config.lease.identity = std::string(host) + "_" + std::to_string(::getpid());
  if (const auto problem = controller::check_lease_config(config.lease); !problem.empty()) {
    return fail_usage(ctx, problem);
  }

  auto gates = controller::parse_feature_gates(f.feature_gates);
  if (!gates) return fail_usage(ctx, gates.error().message);
  config.features = *gates;

  auto client = make_controller_client(ctx);
  if (!client) return fail_usage(ctx, client.error().message);
  if (config.features.train_job_status) {
    const std::string own_ns = pod_namespace();
    config.status_server.port = f.status_port;
    config.status_server.advertise_host =
        !f.status_host.empty()
            ? f.status_host
            : "kubectl-pytorch-controller." + (own_ns.empty() ? "kubectl-pytorch" : own_ns) + ".svc";
    auto tls = status_server_tls(**client, f.status_cert_dir, own_ns, f.status_secret,
                                 config.status_server.advertise_host);
    if (!tls) return fail(ctx, tls.error());
    config.status_server.tls = std::move(*tls);
  }

  util::RealClock clock;
  controller::Logger log(
      ctx.err, f.log_format == "json" ? controller::LogFormat::json : controller::LogFormat::text, clock);
  std::atomic<bool> stop{false};
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigset_t previous;
  pthread_sigmask(SIG_BLOCK, &signals, &previous);
  std::thread waiter([&signals, &stop, &log] {
    int sig = 0;
    sigwait(&signals, &sig);
    if (!stop.load())
      log.info("signal received, stopping", {{"signal", sig == SIGINT ? "SIGINT" : "SIGTERM"}});
    stop = true;
  });
  const int code = controller::run_controller(**client, config, clock, log, stop);
  if (!stop.exchange(true)) pthread_kill(waiter.native_handle(), SIGTERM);  // wake the waiter
  waiter.join();
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return code;
}

}  // namespace

void add_controller_command(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<ControllerFlags>();
  auto* cmd = app.add_subcommand(
      "controller", "Run the lightweight controller: PyTorchJobs and TrainJobs into Pods (or JobSets)");
  cmd->add_option("--env-style", flags->env_style,
                  "Env of the pods: worker-only, torchrun, legacy, operator@vX.Y.Z")
      ->capture_default_str();
  cmd->add_option("--workers", flags->workers, "Jobs reconciled in parallel")->capture_default_str();
  // Two flags, not CLI11's "--leader-elect,!--no-leader-elect", whose help shows "{false}".
  cmd->add_flag("--leader-elect", flags->leader_elect,
                "Take a coordination.k8s.io Lease before reconciling, so that instances sharing it never "
                "run at once (the default)");
  cmd->add_flag_callback(
      "--no-leader-elect", [flags] { flags->leader_elect = false; },
      "Reconcile without a Lease (one instance only)");
  cmd->add_option("--lease-name", flags->lease_name, "Name of the Lease")->capture_default_str();
  cmd->add_option("--lease-namespace", flags->lease_namespace, "Namespace of the Lease")
      ->capture_default_str();
  cmd->add_option("--lease-duration", flags->lease_duration, "How long a lease is valid")
      ->capture_default_str();
  cmd->add_option("--renew-deadline", flags->renew_deadline,
                  "The leader gives up if it cannot renew for this long")
      ->capture_default_str();
  cmd->add_option("--retry-period", flags->retry_period, "Time between lease attempts")
      ->capture_default_str();
  cmd->add_option("--metrics-addr", flags->metrics_addr,
                  "Address of /metrics, /healthz and /readyz ('0': off)")
      ->capture_default_str();
  cmd->add_option("--log-format", flags->log_format, "Logs as 'text' or 'json'")->capture_default_str();
  cmd->add_option("--managed-by", flags->managed_by)->group("");  // gone: says what replaces it
  cmd->add_option(
      "--job-selector", flags->job_selector,
      "Reconcile only PyTorchJobs and TrainJobs whose labels match (k=v, k!=v, k, !k, comma-separated), "
      "such as kubectl-pytorch.kubeflow.org/controller=NAME");
  cmd->add_option(
      "--migrate-from", flags->migrate_from,
      "Taking jobs over from a Training Operator release (operator@vX.Y.Z): the jobs it started keep its "
      "env in the pods made again (recorded in the job's kubectl-pytorch.kubeflow.org/env-style)");
  cmd->add_flag(
      "--skip-controller-check", flags->skip_controller_check,
      "Do not look for a Training Operator, Trainer or another kubectl-pytorch controller reconciling the "
      "same jobs (the check needs list on deployments.apps, and stops the kinds it cannot clear)");
  cmd->add_option(
      "--gang-scheduler", flags->gang_scheduler,
      "PodGroups for every job: 'volcano', or a scheduler-plugins scheduler name (default: only jobs "
      "with runPolicy.schedulingPolicy, with Volcano)");
  cmd->add_option(
      "--kinds", flags->kinds,
      "Kinds to reconcile: pytorchjobs, trainjobs or both, comma-separated (default: both, TrainJobs "
      "where the API server serves them)");
  cmd->add_flag("--via-jobset", flags->via_jobset,
                "TrainJobs into the JobSet Trainer creates, for a cluster that runs the JobSet controller "
                "(default: the pods and headless Service directly)");
  cmd->add_option("--resync", flags->resync, "Re-list everything this often")->capture_default_str();
  cmd->add_flag("--no-events", flags->no_events, "Do not record Events");
  cmd->add_option(
         "--feature-gates", flags->feature_gates,
         "Kubeflow Trainer's gates, Name=bool comma-separated: " + controller::feature_gates_help() +
             ". TrainJobStatus: the trainer pods get KUBEFLOW_TRAINER_SERVER_URL, _CA_CERT and _TOKEN "
             "and post progress to an HTTPS status server on every replica, written to a TrainJob's "
             "status.trainerStatus (a PyTorchJob's annotation " +
             std::string(model::trainjob::k_trainer_status_annotation) + ")")
      ->type_name("GATES");
  cmd->add_option("--status-server-port", flags->status_port, "TrainJobStatus: the status server's port")
      ->capture_default_str();
  cmd->add_option("--status-server-host", flags->status_host,
                  "TrainJobStatus: the name pods reach it by, in its certificate (default "
                  "kubectl-pytorch-controller.<its namespace>.svc)");
  cmd->add_option("--status-server-cert-dir", flags->status_cert_dir,
                  "TrainJobStatus: tls.crt, tls.key and ca.crt to serve with (default: the Secret of "
                  "--status-server-secret in a pod, created when missing; else a new CA per process)")
      ->type_name("DIR");
  cmd->add_option("--status-server-secret", flags->status_secret,
                  "TrainJobStatus in a pod: the kubernetes.io/tls Secret its replicas share")
      ->capture_default_str();
  cmd->footer(
      "Examples:\n"
      "  kubectl pytorch controller                            # both kinds, with the current kubeconfig\n"
      "  kubectl pytorch controller --log-format json --job-selector "
      "kubectl-pytorch.kubeflow.org/controller=team-a\n"
      "  kubectl pytorch controller --kinds trainjobs --via-jobset   # where the JobSet controller runs\n"
      "  kubectl pytorch controller --migrate-from operator@v1.9.4   # after scaling the Training Operator "
      "to 0\n"
      "Each kind stands on its own: one the RBAC forbids, or whose jobs another controller runs (a Training\n"
      "Operator, Trainer, another instance of ours under another lease; checked every 10s, and when the "
      "check\n"
      "cannot see it stops the kind), is not reconciled, /readyz and the log say why and the fix, and the\n"
      "others go on. /healthz fails when the RBAC forbids every kind. Ownership: docs/controller.md.\n"
      "  kubectl pytorch controller --feature-gates TrainJobStatus=true   # progress from the pods "
      "(docs/progress.md)\n"
      "Exit codes: 0 stopped by SIGINT or SIGTERM; 1 the controller cannot run (at its start another "
      "controller\n"
      "reconciles every kind it would, the kinds it is asked for or JobSets with --via-jobset are not "
      "served,\n"
      "its lease is lost); 2 usage or no usable kubeconfig.");
  cmd->callback([&ctx, flags, cmd] {
    if (cmd->got_subcommand("manifests")) return;
    ctx.exit_code = run(ctx, *flags);
  });

  auto* manifests = cmd->add_subcommand(
      "manifests", "Print the CRDs, RBAC and Deployment to run the controller in-cluster");
  manifests->footer(
      "Examples:\n"
      "  kubectl pytorch controller manifests | kubectl apply --server-side -f -\n"
      "  kubectl pytorch controller manifests --trainer --image REGISTRY/kubectl-pytorch:v0.1.0@sha256:...\n"
      "  kubectl pytorch controller manifests --via-jobset | kubectl apply --server-side -f -\n"
      "  kubectl pytorch controller manifests -n team-a --skip-crds   # a controller of one namespace's "
      "jobs\n"
      "  kubectl pytorch controller manifests --runtimes | kubectl apply --server-side -f -\n"
      "-n NS: the controller runs in NS and reconciles the jobs of NS only, with a Role there (and list on\n"
      "Deployments cluster-wide, for its check for other controllers). Where a kubeconfig names a cluster,\n"
      "a warning says which CRDs another installer owns there. What each document is: docs/controller.md.\n"
      "Exit codes: 0 printed; 2 usage.");
  manifests->add_option("--image", flags->image, "Controller image")->capture_default_str();
  manifests->add_flag(
      "--trainer", flags->trainer,
      "Also the Kubeflow Trainer v2 CRDs (v2.3.0 schema) and the RBAC to reconcile TrainJobs, "
      "for a cluster without Trainer");
  manifests->add_flag("--via-jobset", flags->via_jobset,
                      "A controller that reconciles TrainJobs into JobSets: its flag, and the TrainJob and "
                      "JobSet RBAC");
  manifests->add_flag("--skip-crds", flags->skip_crds,
                      "No CRDs: for a cluster where the Training Operator or Trainer installed them");
  manifests->add_flag("--runtimes", flags->runtimes,
                      "Only Trainer's default ClusterTrainingRuntimes, to apply after the CRDs of --trainer");
  manifests
      ->add_option("--feature-gates", flags->feature_gates,
                   "The controller's gates; TrainJobStatus=true adds the status server's Service, port "
                   "and RBAC")
      ->type_name("GATES");
  manifests->callback([&ctx, flags] {
    if (flags->runtimes) {
      ctx.out << controller::runtime_manifests();
      ctx.exit_code = exit_code::ok;
      return;
    }
    auto gates = controller::parse_feature_gates(flags->feature_gates);
    if (!gates) {
      ctx.exit_code = fail_usage(ctx, gates.error().message);
      return;
    }
    controller::ManifestOptions options;
    options.train_job_status = gates->train_job_status;
    options.image = flags->image;
    options.trainer = flags->trainer;
    options.via_jobset = flags->via_jobset;
    options.skip_crds = flags->skip_crds;
    if (!ctx.connection.namespace_.empty()) {
      options.namespace_ = ctx.connection.namespace_;
      options.namespaced = true;
    }
    warn_foreign_crds(ctx, options);
    ctx.out << controller::controller_manifests(options);
    ctx.exit_code = exit_code::ok;
  });
}

}  // namespace kpt::plugin
