#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kpt::model::trainjob {

/// A JobSet as the API server stores it: the JobSet webhook's defaults (successPolicy All,
/// startupPolicy AnyOrder, completionMode Indexed, restartPolicy OnFailure, network
/// enableDNSHostnames and publishNotReadyAddresses true, failure-policy rule names `failurePolicyRule<i>`,
/// volume retention Delete) and the CRD's (replicas 1, groupName "default", restartStrategy Recreate)
/// (kubernetes-sigs/jobset v0.12.0 pkg/webhooks/jobset_webhook.go, api/jobset/v1alpha2).
nlohmann::json default_jobset(const nlohmann::json& jobset);

/// The subdomain of the JobSet's pods: spec.network.subdomain, else the JobSet name.
std::string jobset_subdomain(const nlohmann::json& jobset);

/// The headless Service JobSet creates for a (defaulted) JobSet: named after the subdomain,
/// clusterIP None, selector jobset-name, no ports, publishNotReadyAddresses, owned by the JobSet
/// (its metadata.uid). Nothing when enableDNSHostnames is false.
std::optional<nlohmann::json> headless_service(const nlohmann::json& jobset);

/// `<pvc template>-<jobset>` PersistentVolumeClaims of spec.volumeClaimPolicies.
std::vector<nlohmann::json> desired_pvcs(const nlohmann::json& jobset);

/// `<jobset>-<replicatedJob>-<index>`.
std::string job_name(const std::string& jobset, const std::string& replicated_job, std::int64_t index);

/// The Job JobSet creates for replicas[index] of a replicated job of a (defaulted) JobSet:
/// the job template plus every jobset.sigs.k8s.io label and annotation (job-key = SHA-1 of
/// "<ns>/<job>", restart-attempt = status.restarts) on the Job and its pod template, the
/// subdomain, suspend, the PVC volumes and the JobSet owner reference. Nothing for an unknown job.
std::optional<nlohmann::json> desired_job(const nlohmann::json& jobset, const std::string& replicated_job,
                                          std::int64_t index);

/// Every Job of the JobSet, replicated jobs in spec order.
std::vector<nlohmann::json> desired_jobs(const nlohmann::json& jobset);

/// A Job as the API server stores it once created with `uid`: backoffLimit 6 when unset, the
/// generated selector and the batch.kubernetes.io/controller-uid and job-name labels (and their
/// legacy forms) on the pod template, metadata.uid.
nlohmann::json created_job(const nlohmann::json& job, const std::string& uid);

/// The pod name prefix the Job controller asks for: `<job>-<index>-`, the job name cut so the
/// prefix stays within 58 characters (kubernetes pkg/controller/job/indexed_job_utils.go).
std::string pod_generate_name(const std::string& job, std::int64_t index);

/// The random part the API server appends to a generateName; injected so tests and the
/// controller can be deterministic (the real one is 5 random characters).
using PodNameSuffix = std::function<std::string(const std::string& generate_name, std::int64_t index)>;

/// Knobs of the cluster that change what pods look like.
struct PodOptions {
  bool pod_index_label = true;      ///< PodIndexLabel (on by default since Kubernetes 1.28)
  std::optional<int> priority = 0;  ///< spec.priority the Priority admission plugin sets (JobSet labels it)
};

/// The pod the Job controller creates for completion index `index` of a created Job: the template
/// with the completion-index annotation (and label), hostname `<job>-<index>`, JOB_COMPLETION_INDEX
/// appended to every container and init container lacking it, the Job owner reference, and the
/// JobSet pod webhook's priority label.
nlohmann::json desired_pod(const nlohmann::json& job, std::int64_t index, const PodNameSuffix& suffix,
                           const PodOptions& options = {});

/// The pods a real cluster creates for these Jobs of `jobset`: every completion index of each.
std::vector<nlohmann::json> desired_pods(const nlohmann::json& jobset,
                                         const std::vector<nlohmann::json>& jobs, const PodNameSuffix& suffix,
                                         const PodOptions& options = {});

}  // namespace kpt::model::trainjob
