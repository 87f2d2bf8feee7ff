#include "plugin/doctor/doctor_output.hpp"

#include "plugin/ansi.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <ostream>

namespace kpt::plugin {

namespace {

using nlohmann::json;

enum class Tone { good, absent, bad, plain };

struct Row {
  std::string check;
  std::string status;
  std::string detail;
  Tone tone = Tone::plain;
};

Tone tone_of(CheckState s) {
  switch (s) {
    case CheckState::found:
      return Tone::good;
    case CheckState::not_installed:
      return Tone::absent;
    default:
      return Tone::bad;
  }
}

/// A row for a check: its state's words, or the detail when found; errors show their message.
Row row(const std::string& check, CheckState s, const std::string& found_detail, const std::string& message) {
  Row r{check, to_string(s), found_detail, tone_of(s)};
  if (s == CheckState::forbidden || s == CheckState::failed) r.detail = message;
  if (s == CheckState::not_installed) r.detail.clear();
  return r;
}

Row present_row(const std::string& check, const DoctorReport& rep, bool present, const std::string& detail) {
  if (rep.crd_list != CheckState::found) return row(check, rep.crd_list, "", rep.crd_list_message);
  return row(check, present ? CheckState::found : CheckState::not_installed, detail, "");
}

std::string image_detail(const DoctorReport& r) {
  const auto& d = r.operator_deployment;
  std::string out = d.ns + "/" + d.name + ", image " + d.image;
  if (!r.operator_image.releases.empty()) out += " -> " + releases_text(r.operator_image.releases);
  return out;
}

std::string crd_detail(const CrdInfo& c) {
  std::string out =
      "served " + (c.served_versions.empty() ? std::string("none") : util::join(c.served_versions, ","));
  out += "; controller-gen " + (c.controller_gen.empty() ? std::string("absent") : c.controller_gen);
  if (!c.generator_releases.empty()) out += " (" + releases_text(c.generator_releases) + ")";
  out += "; schema " +
         (c.fingerprint.empty() ? std::string("matches no release") : releases_text(c.fingerprint));
  return out;
}

std::string trainer_releases_text(const std::vector<model::trainjob::TrainerRelease>& rs) {
  std::vector<std::string> names;
  for (const auto& r : rs) names.push_back(r.to_string());
  return names.empty() ? "no known release" : util::join(names, " or ");
}

// Trainer v2 beyond its Deployment: the release image and CRD imply, JobSet, the installed runtimes.
void add_trainer_rows(std::vector<Row>& rows, const DoctorReport& r) {
  const auto& t = r.trainer;
  const auto release = detected_trainer_release(t);
  std::string detail = "image " + (t.image_release ? t.image_release->to_string() : std::string("unknown"));
  if (t.crd == CheckState::found) detail += ", CRD fingerprint " + trainer_releases_text(t.crd_releases);
  const std::string agreement = trainer_agreement(t);
  detail += agreement == "disagree" ? " (they disagree)" : agreement == "agree" ? " (they agree)" : "";
  rows.push_back({"trainer release", release ? release->to_string() : "unknown", detail,
                  agreement == "disagree" ? Tone::bad
                  : release               ? Tone::good
                                          : Tone::absent});
  rows.push_back(present_row("jobset", r, r.add_ons.jobset, "jobsets.jobset.x-k8s.io"));
  if (t.runtimes != CheckState::found) {
    rows.push_back(row("runtimes", t.runtimes, "", t.runtimes_message));
    return;
  }
  if (t.cluster_runtimes.empty())
    rows.push_back({"runtimes", "none", "no ClusterTrainingRuntime", Tone::absent});
  for (const auto& rt : t.cluster_runtimes) {
    rows.push_back({"runtime " + rt.name, rt.framework.empty() ? "-" : rt.framework,
                    "numNodes " + std::to_string(rt.num_nodes) + (rt.deprecated ? ", deprecated" : ""),
                    rt.deprecated ? Tone::absent : Tone::plain});
  }
}

/// Availability, Lease holder and stuck jobs of our controller: what on-call looks at first.
void add_controller_rows(std::vector<Row>& rows, const ControllerHealthInfo& c) {
  if (c.deployment == CheckState::found) {
    const bool available = c.ready >= std::max<std::int64_t>(1, c.desired);
    rows.push_back({"controller availability", available ? "available" : "unavailable",
                    c.where + ": " + std::to_string(c.ready) + "/" + std::to_string(c.desired) + " ready",
                    available ? Tone::good : Tone::bad});
  } else if (c.deployment != CheckState::not_installed) {
    rows.push_back(row("controller availability", c.deployment, "", c.deployment_message));
  }
  if (!c.lease_key.empty()) {
    Row lease = row("controller lease", c.lease, "", c.lease_message);
    if (c.lease == CheckState::found) {
      lease.status = c.lease_live ? "held" : "expired";
      lease.tone = c.lease_live ? Tone::good : Tone::bad;
      lease.detail = c.lease_key + (c.holder.empty() ? std::string(", no holder")
                                                     : ", holder " + c.holder + ", renewed " +
                                                           std::to_string(c.renewed_seconds_ago) + "s ago");
    }
    rows.push_back(std::move(lease));
  }
  if (c.jobs == CheckState::not_installed) return;  // not read (the CRD is not there)
  Row stuck = row("stuck jobs", c.jobs, "", c.jobs_message);
  if (c.jobs == CheckState::found) {
    stuck.status = c.stuck.empty() ? "none" : std::to_string(c.stuck.size());
    stuck.tone = c.stuck.empty() ? Tone::good : Tone::bad;
    for (const auto& s : c.stuck)
      stuck.detail +=
          (stuck.detail.empty() ? "" : ", ") + s.key + " " + s.phase + " " + std::to_string(s.minutes) + "m";
  }
  rows.push_back(std::move(stuck));
}

std::vector<Row> rows_of(const DoctorReport& r) {
  std::vector<Row> rows;
  rows.push_back({"server", "reachable", r.server, Tone::good});
  rows.push_back(row("operator deployment", r.operator_deployment.state, image_detail(r),
                     r.operator_deployment.message));
  if (r.ours) {
    rows.push_back({"kubectl-pytorch controller", "found",
                    r.ours->where + ", env style " + model::pytorchjob::to_string(r.ours->style),
                    Tone::good});
  }
  add_controller_rows(rows, r.controller);
  rows.push_back(row("pytorchjob CRD", r.crd.state, crd_detail(r.crd), r.crd.message));
  Row hook = row("validating webhook", r.webhook, k_webhook_name, r.webhook_message);
  if (r.webhook == CheckState::not_installed) hook.detail = k_webhook_name;
  rows.push_back(std::move(hook));
  Row pods = row("job pods", r.job_pods.state, "", r.job_pods.message);
  if (r.job_pods.state == CheckState::not_installed) pods = Row{"job pods", "none", "", Tone::absent};
  if (r.job_pods.state == CheckState::found) {
    pods.detail = std::to_string(r.job_pods.pods) + (r.job_pods.pods == 1 ? " pod" : " pods") +
                  " labelled as by " +
                  (r.job_pods.releases.empty() ? std::string("different releases")
                                               : releases_text(r.job_pods.releases));
  }
  rows.push_back(std::move(pods));
  if (r.verdict.ours) {
    rows.push_back({"env style", model::pytorchjob::to_string(style_for(r.verdict)),
                    "what kubectl-pytorch's controller injects (kubectl pytorch env shows it per pod)",
                    Tone::plain});
  } else if (r.verdict.release) {
    rows.push_back({"env style", model::pytorchjob::to_string(style_for(*r.verdict.release)),
                    env_style_summary(*r.verdict.release), Tone::plain});
  } else {
    rows.push_back({"env style", "unknown", "", Tone::absent});
  }
  std::string trainer_detail = "trainjobs.trainer.kubeflow.org";
  if (r.trainer_deployment.state == CheckState::found) {
    trainer_detail += "; " + r.trainer_deployment.ns + "/" + r.trainer_deployment.name + ", image " +
                      r.trainer_deployment.image;
  }
  rows.push_back(present_row("trainer v2", r, r.add_ons.trainer_v2, trainer_detail));
  if (r.add_ons.trainer_v2) add_trainer_rows(rows, r);
  rows.push_back(present_row("volcano", r, r.add_ons.volcano, "podgroups.scheduling.volcano.sh"));
  rows.push_back(present_row("scheduler-plugins", r, r.add_ons.scheduler_plugins,
                             "podgroups." + r.add_ons.scheduler_plugins_group));
  rows.push_back(present_row("kueue", r, r.add_ons.kueue, "kueue.x-k8s.io"));
  for (const auto& p : r.permissions) {
    Row pr{p.verb + " " + p.resource, p.allowed ? "allowed" : "denied", "in namespace " + util::quote(r.ns),
           p.allowed ? Tone::good : Tone::bad};
    if (p.state != CheckState::found) pr = Row{pr.check, "unknown", p.message, Tone::bad};
    rows.push_back(std::move(pr));
  }
  return rows;
}

const char* colour_of(Tone t) {
  switch (t) {
    case Tone::good:
      return ansi::green;
    case Tone::absent:
      return ansi::yellow;
    case Tone::bad:
      return ansi::red;
    case Tone::plain:
      return "";
  }
  return "";
}

json releases_json(const std::vector<model::pytorchjob::Release>& rs) {
  json out = json::array();
  for (const auto& r : rs) out.push_back(r.to_string());
  return out;
}

void add_state(json& j, CheckState s, const std::string& message) {
  j["state"] = json_name(s);
  if (!message.empty() && (s == CheckState::forbidden || s == CheckState::failed)) j["message"] = message;
}

const char* image_kind_name(ImageMatch::Kind k) {
  switch (k) {
    case ImageMatch::Kind::release:
      return "release";
    case ImageMatch::Kind::untagged:
      return "untagged";
    case ImageMatch::Kind::latest:
      return "latest";
    case ImageMatch::Kind::digest:
      return "digest";
    case ImageMatch::Kind::unknown:
      return "unknown";
  }
  return "unknown";
}

const char* verdict_kind_name(Verdict::Kind k) {
  switch (k) {
    case Verdict::Kind::agree:
      return "agree";
    case Verdict::Kind::image:
      return "image";
    case Verdict::Kind::crd:
      return "crd";
    case Verdict::Kind::disagree:
      return "disagree";
    case Verdict::Kind::unknown:
      return "unknown";
    case Verdict::Kind::ours:
      return "ours";
  }
  return "unknown";
}

json deployment_json(const DeploymentInfo& d) {
  json j = json::object();
  add_state(j, d.state, d.message);
  if (d.state == CheckState::found) {
    j["namespace"] = d.ns;
    j["name"] = d.name;
    j["image"] = d.image;
  }
  return j;
}

json trainer_releases_json(const std::vector<model::trainjob::TrainerRelease>& rs) {
  json out = json::array();
  for (const auto& r : rs) out.push_back(r.to_string());
  return out;
}

void add_trainer_json(json& j, const DoctorReport& r) {
  const auto& t = r.trainer;
  const auto release = detected_trainer_release(t);
  json crd = json::object();
  add_state(crd, t.crd, t.crd_message);
  crd["fingerprintReleases"] = trainer_releases_json(t.crd_releases);
  j["trainerCrd"] = crd;
  j["imageRelease"] = t.image_release ? json(t.image_release->to_string()) : json(nullptr);
  j["release"] = release ? json(release->to_string()) : json(nullptr);
  j["agreement"] = trainer_agreement(t);
  j["jobset"] = r.crd_list == CheckState::found && r.add_ons.jobset;
  json runtimes = json::object();
  add_state(runtimes, t.runtimes, t.runtimes_message);
  runtimes["items"] = json::array();
  for (const auto& rt : t.cluster_runtimes) {
    runtimes["items"].push_back({{"name", rt.name},
                                 {"framework", rt.framework},
                                 {"numNodes", rt.num_nodes},
                                 {"deprecated", rt.deprecated}});
  }
  j["clusterTrainingRuntimes"] = runtimes;
}

json controller_json(const ControllerHealthInfo& c) {
  json deployment = json::object();
  add_state(deployment, c.deployment, c.deployment_message);
  if (c.deployment == CheckState::found) {
    deployment["where"] = c.where;
    deployment["desired"] = c.desired;
    deployment["ready"] = c.ready;
    deployment["available"] = c.ready >= std::max<std::int64_t>(1, c.desired);
  }
  json lease = json::object();
  add_state(lease, c.lease, c.lease_message);
  lease["key"] = c.lease_key;
  lease["holder"] = c.holder;
  lease["renewedSecondsAgo"] = c.renewed_seconds_ago;
  lease["live"] = c.lease_live;
  json jobs = json::object();
  add_state(jobs, c.jobs, c.jobs_message);
  jobs["stuck"] = json::array();
  for (const auto& s : c.stuck)
    jobs["stuck"].push_back({{"job", s.key}, {"phase", s.phase}, {"minutes", s.minutes}});
  return {{"deployment", deployment}, {"lease", lease}, {"jobs", jobs}};
}

}  // namespace

void write_doctor_table(std::ostream& out, const DoctorReport& report, bool colour) {
  const auto rows = rows_of(report);
  std::vector<std::vector<std::string>> cells = {{"CHECK", "STATUS", "DETAIL"}};
  for (const auto& r : rows) cells.push_back({r.check, r.status, r.detail});
  util::ColumnLayout layout;
  layout.gap = 2;
  if (colour) {
    layout.paint = [&rows](std::size_t row, std::size_t column) {
      if (row == 0 || column != 1 || rows[row - 1].tone == Tone::plain) return util::CellPaint{};
      return util::CellPaint{colour_of(rows[row - 1].tone), ansi::reset};
    };
  }
  out << util::format_columns(cells, layout);
  if (!report.verdict.notes.empty()) out << "\n";
  out << util::note_lines(report.verdict.notes);
  out << "\nverdict: " << report.verdict.summary << "\n";
  if (!report.problems.empty()) {
    out << "\nproblems:\n";
    for (const auto& p : report.problems) out << "  " << p << "\n";
  }
}

void write_doctor_json(std::ostream& out, const DoctorReport& r) {
  json j;
  j["server"] = r.server;
  j["namespace"] = r.ns;
  json op = deployment_json(r.operator_deployment);
  if (r.operator_deployment.state == CheckState::found) {
    op["imageTag"] = r.operator_image.tag;
    op["imageKind"] = image_kind_name(r.operator_image.kind);
    op["imageReleases"] = releases_json(r.operator_image.releases);
  }
  j["operator"] = op;
  json crd = json::object();
  add_state(crd, r.crd.state, r.crd.message);
  if (r.crd.state == CheckState::found) {
    crd["servedVersions"] = r.crd.served_versions;
    crd["controllerGen"] = r.crd.controller_gen;
    crd["controllerGenReleases"] = releases_json(r.crd.generator_releases);
    crd["fingerprintReleases"] = releases_json(r.crd.fingerprint);
    crd["resourceVersion"] = r.crd.resource_version;
  }
  j["crd"] = crd;
  json hook = json::object();
  add_state(hook, r.webhook, r.webhook_message);
  hook["name"] = k_webhook_name;
  j["webhook"] = hook;
  json pods = json::object();
  add_state(pods, r.job_pods.state, r.job_pods.message);
  pods["pods"] = r.job_pods.pods;
  pods["labelReleases"] = releases_json(r.job_pods.releases);
  j["jobPods"] = pods;
  const bool listed = r.crd_list == CheckState::found;
  j["trainerV2"] = {{"crd", listed && r.add_ons.trainer_v2},
                    {"deployment", deployment_json(r.trainer_deployment)},
                    {"version", r.trainer_version}};
  add_trainer_json(j["trainerV2"], r);
  json gang = json::object();
  add_state(gang, r.crd_list, r.crd_list_message);
  gang["volcano"] = listed && r.add_ons.volcano;
  gang["schedulerPlugins"] = listed && r.add_ons.scheduler_plugins;
  gang["schedulerPluginsGroup"] = r.add_ons.scheduler_plugins_group;
  gang["kueue"] = listed && r.add_ons.kueue;
  j["gangScheduling"] = gang;
  json perms = json::array();
  for (const auto& p : r.permissions) {
    json pj = {{"verb", p.verb}, {"resource", p.resource}, {"namespace", r.ns}};
    add_state(pj, p.state, p.message);
    pj["allowed"] = p.allowed;
    pj["reason"] = p.reason;
    perms.push_back(std::move(pj));
  }
  j["permissions"] = perms;
  const auto& v = r.verdict;
  j["verdict"] = {{"kind", verdict_kind_name(v.kind)},
                  {"release", v.release ? json(v.release->to_string()) : json(nullptr)},
                  {"candidates", releases_json(v.candidates)},
                  {"envStyle", v.release ? json(model::pytorchjob::to_string(style_for(v))) : json(nullptr)},
                  {"summary", v.summary},
                  {"notes", v.notes}};
  j["controller"] = controller_json(r.controller);
  j["problems"] = r.problems;
  out << j.dump(2) << "\n";
}

}  // namespace kpt::plugin
