#include "plugin/follow/diagnosis.hpp"

#include "model/k8s/object_meta.hpp"
#include "plugin/follow/exit_status.hpp"
#include "plugin/follow/job_view.hpp"
#include "plugin/follow/traceback.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <set>
#include <string_view>

namespace kpt::plugin {

namespace {

using nlohmann::json;

// Failures this close after the first one may still be its cause: finishedAt has second
// resolution, and kubelets on different nodes see exits at slightly different times.
constexpr long long k_same_moment_seconds = 5;
// A container that keeps failing this often in back-off is in a crash loop for `diagnose`.
constexpr int k_crash_loop_restarts = 3;
// ... when its last failure is this recent.
constexpr std::chrono::minutes k_recent_failure{2};

const json* find_pod(const std::vector<json>& pods, const std::string& name) {
  for (const auto& p : pods) {
    if (model::k8s::name_of(p) == name) return &p;
  }
  return nullptr;
}

const RunLog* find_log(const std::vector<RunLog>& logs, const std::string& pod, bool previous) {
  for (const auto& l : logs) {
    if (l.pod == pod && l.previous == previous) return &l;
  }
  return nullptr;
}

std::string last_non_empty(const std::vector<std::string>& lines) {
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    const auto t = util::trim(strip_launcher_prefix(*it));
    if (!t.empty()) return std::string(t);
  }
  return {};
}

int int_field(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<int>() : 0;
}

/// An exception that usually follows another rank's failure (a lost peer, a closed rendezvous).
bool is_collateral(const PythonError& error) {
  FailureEvidence evidence;
  evidence.exception_line = error.line;
  return maybe_collateral(classify_failure(evidence));
}

/// torchrun's report ends a node's log, so its last line says nothing: the worker's last words are
/// its own tagged lines (--tee), or else what came before torchrun's "failed (exitcode: N)" line
/// (a worker that could not start prints untagged).
std::optional<std::string> worker_last_line(const std::vector<std::string>& lines,
                                            const TorchrunWorkerEnd& w) {
  const std::string tag = fmt::format("[default{}]:", w.local_rank);
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (util::starts_with(*it, tag)) return std::string(strip_launcher_prefix(*it));
  }
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (!util::starts_with(*it, "ERROR:torch.distributed.elastic.multiprocessing.api:failed")) continue;
    for (auto before = std::next(it); before != lines.rend(); ++before) {
      if (!util::trim(*before).empty()) return *before;
    }
    break;
  }
  return std::nullopt;
}

// decode_exit's words for a signal that read after "was"; the others are nouns.
constexpr std::string_view k_participles[] = {"killed", "interrupted", "aborted", "terminated", "hung up"};

/// What a run's log says about its failure, folded into `f` and `evidence`: the exception, the last
/// line, and under torchrun the worker its report names (torchrun exits 1 whatever ended its worker,
/// and its ChildFailedError says only that one failed: the report says which, and how). Whether the
/// log tells of a failure at all.
bool read_run_log(const RunLog& log, RankFailure& f, FailureEvidence& evidence) {
  f.error = cause_python_error(log.lines);
  f.last_line = last_non_empty(log.lines);
  evidence.lines = log.lines;
  const auto worker = torchrun_failed_worker(log.lines);
  if (!worker) return f.error.has_value();
  f.last_line = worker_last_line(log.lines, *worker).value_or(f.last_line);
  const bool killed = worker->signal > 0;
  if (f.error && !is_launcher_failure(*f.error) && !(killed && is_collateral(*f.error))) return true;
  f.error.reset();
  std::string how = fmt::format("exited with code {}", worker->exit_code);
  if (killed) {
    f.signal = worker->signal;
    evidence.signal = worker->signal;
    const std::string words = decode_exit(worker->exit_code, "", worker->signal).text;
    // "was killed (SIGKILL)", but "died of segmentation fault (SIGSEGV)": the words are a participle or a
    // noun.
    const bool participle = std::any_of(std::begin(k_participles), std::end(k_participles),
                                        [&](std::string_view p) { return util::starts_with(words, p); });
    how = (participle ? "was " : "died of ") + words;
  }
  f.exit_text += fmt::format(": torchrun's worker of global rank {} (local rank {}) {}", worker->rank,
                             worker->local_rank, how);
  return true;
}

RankFailure failure_base(const ReplicaView& r) {
  RankFailure f;
  f.pod = r.pod;
  f.role = r.role;
  f.rank = r.rank;
  f.restarts = r.restarts;
  return f;
}

// The failed run a replica shows: its current termination, else (restarted, or waiting to)
// the last one; with the log that holds it.
std::optional<RankFailure> failure_of(const ReplicaView& r, const json& pod,
                                      const std::vector<RunLog>& logs) {
  const json cs = container_status(pod, r.container);
  const json& state = util::object_at(cs, "state");
  const json& last = util::object_at(cs, "lastState");
  const json* term = nullptr;
  bool previous_log = false;
  if (state.is_object() && state.contains("terminated") && state["terminated"].is_object()) {
    term = &state["terminated"];
  } else if (last.is_object() && last.contains("terminated") && last["terminated"].is_object()) {
    term = &last["terminated"];
    previous_log = state.is_object() && state.contains("running");  // restarted: the failed run is previous
  }
  if (term == nullptr) return std::nullopt;
  RankFailure f = failure_base(r);
  f.exit_code = int_field(*term, "exitCode");
  f.reason = util::string_at(*term, "reason");
  if (f.exit_code == 0 && f.reason != "OOMKilled") return std::nullopt;
  f.previous_run = previous_log;
  f.signal = int_field(*term, "signal");
  f.finished_at = util::string_at(*term, "finishedAt");
  f.exit_text = decode_exit(f.exit_code, f.reason, f.signal).text;
  FailureEvidence evidence;
  evidence.exit_code = f.exit_code;
  evidence.reason = f.reason;
  evidence.signal = f.signal;
  if (const RunLog* log = find_log(logs, r.pod, previous_log)) read_run_log(*log, f, evidence);
  if (f.reason == "StartError") f.last_line = util::string_at(*term, "message");
  if (f.error) evidence.exception_line = f.error->line;
  f.klass = classify_failure(evidence);
  return f;
}

// A pod deleted before its end was seen (a failed JobSet deletes its Jobs, and their pods, at once):
// its failure as its log tells it, at its last output, when the log tells of one.
std::optional<RankFailure> failure_of_deleted(const ReplicaView& r, const std::vector<RunLog>& logs,
                                              std::chrono::system_clock::time_point now) {
  const RunLog* log = find_log(logs, r.pod, false);
  if (log == nullptr) return std::nullopt;
  RankFailure f = failure_base(r);
  f.exit_text = "was deleted before its exit was seen";
  FailureEvidence evidence;
  evidence.exit_code = 1;  // it failed, by its log; the code itself is gone with the pod
  if (!read_run_log(*log, f, evidence)) return std::nullopt;
  f.finished_at = util::format_time(std::chrono::floor<std::chrono::seconds>(log->last_output.value_or(now)));
  if (f.error) evidence.exception_line = f.error->line;
  f.klass = classify_failure(evidence);
  return f;
}

// A replaced pod's last run: how it ended when the follow saw it end, else (deleted while it ran)
// stopped from outside, by SIGTERM as a deletion stops a pod, no later than the pod's deletion.
std::optional<RankFailure> failure_of_replaced(const ReplacedRun& old, const json& job) {
  const JobView one = make_job_view(job, {old.pod});
  if (one.replicas.empty()) return std::nullopt;
  const ReplicaView& r = one.replicas.front();
  // One that had ended says how; one that ran (its lastState an older run's) was stopped by the deletion.
  auto failure = r.running ? std::nullopt : failure_of(r, old.pod, {old.log});
  if (r.running) {
    RankFailure f = failure_base(r);
    f.exit_code = 143;
    f.signal = 15;
    f.exit_text = "was deleted while it ran (its processes got SIGTERM), and created again";
    FailureEvidence evidence;
    evidence.exit_code = f.exit_code;
    evidence.signal = f.signal;
    read_run_log(old.log, f, evidence);
    const json* deleting = util::at_path(old.pod, "metadata.deletionTimestamp");
    f.finished_at = deleting != nullptr && deleting->is_string()
                        ? deleting->get<std::string>()
                        : util::format_time(std::chrono::floor<std::chrono::seconds>(old.last_seen));
    if (f.error) evidence.exception_line = f.error->line;
    f.klass = classify_failure(evidence);
    failure = std::move(f);
  }
  if (failure) failure->replaced = true;
  return failure;
}

long long seconds_of(const std::string& rfc3339) {
  const auto t = util::parse_time(rfc3339);
  return t ? t->time_since_epoch().count() : 0;
}

std::string step_detail(const RankFailure& f) {
  if (f.klass == FailureClass::missing_module && f.error) return missing_module_name(f.error->line);
  if (f.klass == FailureClass::exception && f.error) return f.error->where;
  if (f.klass == FailureClass::signal) return decode_exit(f.exit_code, f.reason, f.signal).signal;
  return {};
}

// The root cause among the failures: the first by time; but a failure that usually follows
// another's (a lost peer, SIGTERM) gives way to one of another kind at about the same moment.
void order_failures(std::vector<RankFailure>& failures, Diagnosis& d) {
  std::stable_sort(failures.begin(), failures.end(), [](const RankFailure& a, const RankFailure& b) {
    const auto ta = seconds_of(a.finished_at);
    const auto tb = seconds_of(b.finished_at);
    if (ta != tb) return ta < tb;
    // A pod deleted under a rank in the same second is why its peers lost it.
    if (a.replaced != b.replaced) return a.replaced;
    if (maybe_collateral(a.klass) != maybe_collateral(b.klass)) return !maybe_collateral(a.klass);
    if (a.restarts != b.restarts) return a.restarts > b.restarts;
    return a.rank < b.rank;
  });
  std::size_t root = 0;
  const auto first = seconds_of(failures.front().finished_at);
  if (maybe_collateral(failures.front().klass)) {
    for (std::size_t i = 1; i < failures.size(); ++i) {
      if (seconds_of(failures[i].finished_at) - first > k_same_moment_seconds) break;
      if (!maybe_collateral(failures[i].klass)) {
        root = i;
        break;
      }
    }
  }
  d.root = failures[root];
  const auto root_time = seconds_of(d.root->finished_at);
  for (std::size_t i = 0; i < failures.size(); ++i) {
    if (i == root) continue;
    RankFailure f = failures[i];
    f.collateral = maybe_collateral(f.klass);
    if (root_time > 0 && seconds_of(f.finished_at) > 0)
      f.after_root = static_cast<double>(seconds_of(f.finished_at) - root_time);
    d.following.push_back(std::move(f));
  }
}

// Warning events of the job's objects, each reason and message once, newest last.
std::vector<std::string> warning_events(const std::vector<json>& events) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& e : events) {
    if (!e.is_object()) continue;
    const std::string object = util::string_at(util::object_at(e, "involvedObject"), "name");
    const std::string line =
        fmt::format("{}: {}: {}", object, util::string_at(e, "reason"), util::string_at(e, "message"));
    if (seen.insert(line).second) out.push_back(line);
  }
  return out;
}

bool mentions_gang(std::string_view text) {
  const std::string t = util::to_lower(text);
  return t.find("podgroup") != std::string::npos || t.find("pod group") != std::string::npos ||
         t.find("gang") != std::string::npos || t.find("minavailable") != std::string::npos ||
         t.find("minmember") != std::string::npos;
}

// Why nothing runs: a pod that cannot start, cannot be scheduled, or a controller error.
void pending_reason(const JobView& view, const std::vector<std::string>& events, Diagnosis& d) {
  if (auto fatal = fatal_stall(view)) {
    d.verdict = JobVerdict::stuck;
    d.problem = *fatal;
    for (const auto& r : view.replicas) {
      if (!r.start_error.empty()) {
        d.klass = FailureClass::start_error;
      } else if (r.waiting_reason == "CreateContainerConfigError") {
        d.klass = FailureClass::config_error;
      } else if (!r.waiting_reason.empty()) {
        d.klass = FailureClass::image_pull;
      } else {
        continue;
      }
      break;
    }
    return;
  }
  for (const auto& r : view.replicas) {
    if (r.unschedulable.empty()) continue;
    d.verdict = JobVerdict::pending;
    d.klass = mentions_gang(r.unschedulable) ? FailureClass::gang_wait : FailureClass::unschedulable;
    d.problem = fmt::format("{} is not scheduled: {}", r.pod, r.unschedulable);
    return;
  }
  for (const auto& e : events) {
    if (mentions_gang(e)) {
      d.verdict = JobVerdict::pending;
      d.klass = FailureClass::gang_wait;
      d.problem = e;
      return;
    }
  }
  const bool none_started = std::none_of(view.replicas.begin(), view.replicas.end(),
                                         [](const ReplicaView& r) { return r.started; });
  if (none_started && !events.empty()) {
    d.verdict = JobVerdict::pending;
    d.klass = FailureClass::controller_error;
    d.problem = events.back();
    return;
  }
  if (none_started) {
    d.verdict = JobVerdict::pending;
    d.problem = view.replicas.empty() ? "no pods yet" : "no pod has started yet";
  }
}

// A running job's ranks with the age of their last output; silent ones flagged.
void silences(const JobView& view, const DiagnosisInput& in, Diagnosis& d) {
  for (const auto& r : view.replicas) {
    if (r.phase != "Running" || r.rank < 0) continue;
    const RunLog* log = find_log(in.logs, r.pod, false);
    if (log == nullptr || !log->last_output) continue;
    RankSilence s;
    s.pod = r.pod;
    s.role = r.role;
    s.rank = r.rank;
    s.seconds = std::max<long long>(
        0, std::chrono::duration_cast<std::chrono::seconds>(in.now - *log->last_output).count());
    s.last_line = last_non_empty(log->lines);
    s.silent = s.seconds >= in.silence.count();
    d.ranks.push_back(std::move(s));
  }
}

/// Whether the job's own clean-up removes a pod that still runs when the job finishes, so that it is
/// not left behind: a TrainJob's JobSet deletes its active Jobs once it has finished; a PyTorchJob's
/// cleanPodPolicy `All` or `Running` deletes running and pending pods, its default `None` keeps them.
/// A pod already being deleted is on its way out either way.
bool cleanup_removes(const JobView& view, const json& job, const json& pod) {
  if (util::at_path(pod, "metadata.deletionTimestamp") != nullptr) return true;
  if (view.kind == "trainjob") return true;
  const std::string policy = util::string_at(util::object_at(job, "spec.runPolicy"), "cleanPodPolicy");
  return policy == "All" || policy == "Running";
}

}  // namespace

std::string_view verdict_id(JobVerdict v) {
  switch (v) {
    case JobVerdict::succeeded:
      return "succeeded";
    case JobVerdict::failed:
      return "failed";
    case JobVerdict::crash_loop:
      return "crash-loop";
    case JobVerdict::stuck:
      return "stuck";
    case JobVerdict::pending:
      return "pending";
    case JobVerdict::running:
      return "running";
    case JobVerdict::stalled:
      return "stalled";
    case JobVerdict::unknown:
      break;
  }
  return "unknown";
}

Diagnosis diagnose(const DiagnosisInput& in) {
  Diagnosis d;
  const JobView view = make_job_view(in.job, in.pods);
  d.kind = view.kind;
  d.name = view.name;
  d.ns = view.ns;
  d.state = view.state;
  d.message = view.message;
  d.events = warning_events(in.events);

  std::vector<RankFailure> failures;
  int most_restarts = 0;
  bool backing_off = false;
  for (const auto& r : view.replicas) {
    most_restarts = std::max(most_restarts, r.restarts);
    backing_off = backing_off || r.waiting_reason == "CrashLoopBackOff";
    const json* pod = find_pod(in.pods, r.pod);
    if (pod == nullptr) continue;
    const bool deleted = std::find(in.deleted.begin(), in.deleted.end(), r.pod) != in.deleted.end();
    auto failure = failure_of(r, *pod, in.logs);
    // A pod deleted (or being deleted) while a run was going: that run's end, by its log, is later
    // than its lastState's (a Job past its backoffLimit deletes the pod of its last attempt).
    const bool going = deleted || util::at_path(*pod, "metadata.deletionTimestamp") != nullptr;
    if (going && (!failure || r.running)) {
      if (auto gone = failure_of_deleted(r, in.logs, in.now)) failure = std::move(gone);
    }
    if (failure) failures.push_back(std::move(*failure));
    if (deleted) continue;  // gone: not left behind
    if (view.finished && (r.phase == "Running" || r.phase == "Pending") &&
        !cleanup_removes(view, in.job, *pod))
      d.left_behind.push_back(r.pod);
  }
  for (const auto& old : in.replaced) {
    if (auto failure = failure_of_replaced(old, in.job)) failures.push_back(std::move(*failure));
  }
  if (!failures.empty()) order_failures(failures, d);

  // Restarted often and failed again lately (or waiting to restart): a crash loop, as far as one
  // look can tell.
  const bool looping = std::any_of(failures.begin(), failures.end(), [&](const RankFailure& f) {
    const auto finished = util::parse_time(f.finished_at);
    const bool recent =
        finished && in.now - std::chrono::system_clock::time_point(*finished) < k_recent_failure;
    return f.restarts >= k_crash_loop_restarts && (backing_off || recent);
  });
  if (view.succeeded) {
    d.verdict = JobVerdict::succeeded;
  } else if (in.crash_loop_repeats > 0 || (!view.finished && looping)) {
    d.verdict = JobVerdict::crash_loop;
    d.repeats = in.crash_loop_repeats > 0 ? in.crash_loop_repeats : most_restarts;
  } else if (view.finished) {
    d.verdict = JobVerdict::failed;
  } else {
    d.verdict = view.replicas.empty() && !view.exists ? JobVerdict::unknown : JobVerdict::running;
    pending_reason(view, d.events, d);
    if (d.verdict == JobVerdict::running) {
      silences(view, in, d);
      if (std::any_of(d.ranks.begin(), d.ranks.end(), [](const RankSilence& s) { return s.silent; }))
        d.verdict = JobVerdict::stalled;
    }
  }

  StepContext step = in.step;
  step.trainjob = view.kind == "trainjob";
  if (d.root && d.verdict != JobVerdict::succeeded) {
    if (d.klass == FailureClass::none) d.klass = d.root->klass;
    step.detail = step_detail(*d.root);
  }
  if (d.root && d.klass == FailureClass::rendezvous_timeout && d.verdict != JobVerdict::crash_loop) {
    // The ranks still running when the rendezvous gave up are the ones it waited for: they never
    // reached init_process_group (or rank 0's address) in time.
    silences(view, in, d);
    for (auto& r : d.ranks) r.silent = false;
  }
  if (d.verdict == JobVerdict::crash_loop) {
    d.backoff = backoff_budget(in.job, in.pods);
    if (d.backoff) {
      // A limit is set: the loop ends by itself, and saying to set one would be wrong.
      d.next_step = (d.klass == FailureClass::none ? "fix the failure" : next_step(d.klass, step)) + "; " +
                    backoff_end(*d.backoff);
    } else {
      const std::string limit = backoff_hint(view.kind == "trainjob");
      d.next_step = d.klass == FailureClass::none ? next_step(FailureClass::crash_loop, step)
                                                  : next_step(d.klass, step) + "; then " + limit;
    }
  } else if (d.verdict == JobVerdict::stalled) {
    d.next_step = next_step(FailureClass::stalled, step);
  } else if (d.klass == FailureClass::none && view.finished && !view.succeeded && !d.events.empty()) {
    d.klass = FailureClass::controller_error;
    d.problem = d.events.back();
    d.next_step = next_step(d.klass, step);
  } else if (d.verdict == JobVerdict::failed && !d.root && view.replicas.empty()) {
    // A failed JobSet (or cleanPodPolicy All) deletes the pods, and their logs go with them.
    d.problem = d.message;
    d.next_step = fmt::format(
        "its pods were deleted when it failed, and their logs with them: {} run follows a job to its end "
        "and keeps each rank's; the job's events may say more (kubectl get events{})",
        step.program, step.kubectl_flags);
  } else if (d.klass == FailureClass::rendezvous_timeout && !d.ranks.empty()) {
    std::vector<std::string> late;
    for (const auto& r : d.ranks)
      late.push_back(r.role + (r.rank >= 0 ? fmt::format(" (rank {})", r.rank) : ""));
    d.next_step = fmt::format(
        "{} did not join in time: every rank must reach init_process_group within its timeout (start slow "
        "work such as a download after it, or raise timeout=); if it did, check that it reaches rank 0's "
        "MASTER_ADDR:MASTER_PORT",
        util::join(late, " and "));
  } else if (d.verdict != JobVerdict::succeeded && (d.verdict != JobVerdict::running || d.root)) {
    d.next_step = next_step(d.klass, step);
  }
  return d;
}

}  // namespace kpt::plugin
