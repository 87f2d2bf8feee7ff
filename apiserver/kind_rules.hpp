#pragma once

#include "apiserver/status.hpp"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace kpt::apiserver {

/// The fixed value sets kube-apiserver's validation enforces on the pod specs it stores (a Pod's,
/// and the templates of Jobs, CronJobs and Deployments) and on Services and Jobs: restartPolicy,
/// imagePullPolicy, dnsPolicy, port protocols, Service type and session affinity, a Job's
/// completionMode and its template's restartPolicy. Causes as field.NotSupported words them
/// ("Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\"").
/// A value left out is allowed: this server does not default pods, so "" is the default to come.
std::vector<StatusCause> validate_value_sets(const std::string& group, const std::string& kind,
                                             const nlohmann::json& object);

/// What kube-apiserver refuses in an update, beyond what the new object alone shows:
/// - Pod: the spec may change only in containers' and init containers' images, activeDeadlineSeconds
///   (set, or lowered), tolerations (only added), terminationGracePeriodSeconds (to 1 from a negative
///   value) and schedulingGates (only removed); ValidatePodUpdate's message is followed by the changed
///   fields' paths where the real server prints a go-cmp diff of its internal types.
/// - ConfigMap and Secret: `immutable: true` freezes data, binaryData and the flag; a Secret's type
///   never changes.
/// - Job: selector, completionMode and (unless the Job is suspended) the pod template are fixed.
std::vector<StatusCause> validate_update_rules(const std::string& group, const std::string& kind,
                                               const nlohmann::json& old_object,
                                               const nlohmann::json& new_object);

}  // namespace kpt::apiserver
