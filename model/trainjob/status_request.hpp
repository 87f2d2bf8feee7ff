#pragma once

// What Trainer's status server does with a request, as pure functions: the body decoded as Go's
// encoding/json decodes UpdateTrainJobStatusRequest, the answers (a metav1.Status for each error,
// the decoded request echoed on success), and the write to the job (kubeflow/trainer
// pkg/statusserver/server.go, v2.2.0-v2.3.0).

#include "model/trainjob/status_protocol.hpp"
#include "util/expected.hpp"
#include "util/time.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kpt::model::trainjob {

/// The status server's body limit (maxBodySize, 64 KiB).
inline constexpr std::size_t k_status_body_limit = 1 << 16;

/// PyTorchJobs keep what a TrainJob keeps in status.trainerStatus in two annotations of ours:
/// the trainerStatus object as JSON, and the progress percentage alone (for a printer column).
inline constexpr const char* k_trainer_status_annotation = "kubectl-pytorch.kubeflow.org/trainer-status";
inline constexpr const char* k_progress_annotation = "kubectl-pytorch.kubeflow.org/progress-percentage";

struct StatusMetric {
  std::string name;
  std::string value;
  friend bool operator==(const StatusMetric&, const StatusMetric&) = default;
};

/// TrainerStatus as the server decodes it; unset numbers and time are Go's nil and zero values.
struct TrainerStatus {
  std::optional<std::int32_t> progress_percentage;
  std::optional<std::int32_t> estimated_remaining_seconds;
  std::vector<StatusMetric> metrics;
  std::optional<util::Time> last_updated_time;
  friend bool operator==(const TrainerStatus&, const TrainerStatus&) = default;
};

/// UpdateTrainJobStatusRequest: no trainerStatus (absent or null) asks for nothing to be written.
struct StatusUpdate {
  std::optional<TrainerStatus> trainer_status;
  friend bool operator==(const StatusUpdate&, const StatusUpdate&) = default;
};

/// The first JSON value of `body` as Go's json.Decoder reads it into the request type: keys match
/// case-insensitively (the last wins), unknown keys are ignored, what follows the first value is
/// not read; numbers must be integer literals within int32, metric names and values strings,
/// lastUpdatedTime an RFC 3339 string (or null). The error says what Go would have said; the
/// server answers every one with 422 "Invalid payload".
Expected<StatusUpdate> decode_status_update(std::string_view body);

/// The request as Go's encoder writes it back on success, with its final newline.
std::string encode_status_update(const StatusUpdate& update);

/// trainerStatus as the CRD stores it (lastUpdatedTime left out when unset).
nlohmann::json trainer_status_json(const TrainerStatus& status);

/// An answer of the status server: the HTTP code and the JSON body.
struct StatusAnswer {
  int code = 200;
  std::string body;
  friend bool operator==(const StatusAnswer&, const StatusAnswer&) = default;
};

/// A metav1.Status failure as the server writes it: {"metadata":{},"status":"Failure",...}.
StatusAnswer status_failure(int code, const std::string& reason, const std::string& message);
StatusAnswer status_forbidden();          ///< 403 Forbidden: any token problem
StatusAnswer status_invalid_payload();    ///< 422 Invalid: the body does not decode
StatusAnswer status_payload_too_large();  ///< 413 RequestEntityTooLarge: Content-Length over 64 KiB
StatusAnswer status_route_not_found();    ///< 404 NotFound "Not found": any other method or path
StatusAnswer status_job_not_found();      ///< 404 NotFound "Train job not found"
StatusAnswer status_internal_error();     ///< 500 InternalError "Internal error"
/// 422 Invalid with the API server's validation message.
StatusAnswer status_rejected(const std::string& message);

/// The credential of an RFC 7235 `Bearer` Authorization header: the scheme in any case, any
/// whitespace around and between (Trainer v2.3.0); "" unless exactly scheme and one credential.
std::string bearer_credential(std::string_view header);

/// The server-side apply body for a TrainJob's status subresource: only status.trainerStatus.
nlohmann::json trainjob_status_apply(const StatusTarget& target, const TrainerStatus& status);

/// What the TrainJob CRD's rules on trainerStatus reject, in the API server's words
/// ("status.trainerStatus.progressPercentage: Invalid value: 101: ..."): for PyTorchJobs, which
/// keep it in an annotation no schema checks.
std::vector<std::string> trainer_status_errors(const TrainerStatus& status);

/// The API server's message for an invalid object: `PyTorchJob.kubeflow.org "x" is invalid: e`
/// (several errors in brackets, comma-separated).
std::string invalid_object_message(const std::string& kind_group, const std::string& name,
                                   const std::vector<std::string>& errors);

/// The merge patch writing a PyTorchJob's two progress annotations (the percentage removed when
/// the update has none: each update replaces the last one whole, as trainerStatus does).
nlohmann::json pytorchjob_progress_patch(const TrainerStatus& status);

}  // namespace kpt::model::trainjob
