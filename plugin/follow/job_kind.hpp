#pragma once

#include "kube/api_client.hpp"
#include "util/expected.hpp"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace kpt::plugin {

/// What `run`, `logs` and `status` need to know about a kind of training job: where it is served,
/// how its pods are found and which conditions end it.
struct JobKind {
  const char* kind;           ///< "PyTorchJob"
  const char* singular;       ///< "pytorchjob", as kubectl names it in messages
  const char* resource_name;  ///< "pytorchjob.kubeflow.org", the `-o name` form's prefix
  kube::ResourceRef (*resource)();
  const char* pod_label;  ///< the pod label whose value is the job's name
  const char* success_condition;
  const char* failure_condition;
};

const JobKind& pytorchjob_kind();
const JobKind& trainjob_kind();

/// The kind of a manifest or object by its `kind`, or null for any other.
const JobKind* kind_of(const nlohmann::json& object);

/// "pytorchjob.kubeflow.org/NAME".
std::string resource_name(const JobKind& kind, const std::string& name);

/// Whether a success or failure condition of the job is True.
bool is_finished(const JobKind& kind, const nlohmann::json& job);

/// A job named on the command line: NAME, or KIND/NAME as kubectl spells it (pytorchjob/NAME,
/// trainjob/NAME, with the plural or the group also accepted).
struct FoundJob {
  const JobKind* kind = nullptr;
  nlohmann::json object;
};

/// Reads the job NAME or KIND/NAME. A bare NAME is looked up as a PyTorchJob and as a TrainJob;
/// when both exist the user must say which. Not found (404) when neither does.
Expected<FoundJob> find_job(kube::ApiClient& api, const std::string& ns, const std::string& ref);

/// The job's pods (by the kind's pod label).
Expected<kube::ListResult> list_job_pods(kube::ApiClient& api, const JobKind& kind, const std::string& ns,
                                         const std::string& name);

}  // namespace kpt::plugin
