#pragma once

#include "kube/api_client.hpp"
#include "plugin/follow/diagnosis.hpp"
#include "plugin/follow/job_kind.hpp"
#include "util/expected.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace kpt::plugin {

class LastOutputProbe;

/// Whether the event is about this job or one of its objects (pods, Services, PodGroup: named after
/// the job), and not about an earlier job of the same name: the job's own events by uid, its
/// objects' by time (not before the job was created).
bool event_of_job(const nlohmann::json& event, const nlohmann::json& job);

/// The Warning events of a job and its objects (event_of_job), oldest first.
std::vector<nlohmann::json> job_warning_events(kube::ApiClient& api, const std::string& ns,
                                               const nlohmann::json& job);

struct GatherOptions {
  std::int64_t tail_lines = 100;     ///< of each run's log
  LastOutputProbe* probe = nullptr;  ///< a running rank's last output; none: silence unknown
  std::chrono::seconds silence{60};
  std::chrono::system_clock::time_point now = std::chrono::system_clock::now();
};

/// Reads what `diagnose` needs from the cluster: the job's pods, their Warning events and each
/// pod's log tail (the current run, and the previous one when the container has restarted).
/// A log that cannot be read is left out (a pod deleted meanwhile, a node gone).
Expected<DiagnosisInput> gather_diagnosis(kube::ApiClient& api, const FoundJob& job, const std::string& ns,
                                          const GatherOptions& options);

/// Text split at newlines into lines (a final newline ends the last line, no empty line after it).
std::vector<std::string> split_log_lines(std::string_view text);

}  // namespace kpt::plugin
