// Value sets and update rules of the built-in kinds, from k8s.io/kubernetes pkg/apis/core/validation
// and pkg/apis/batch/validation (v1.32): what a schema of v1.13 types cannot say.
#include "apiserver/kind_rules.hpp"

#include "apiserver/go_decode_error.hpp"
#include "schema/k8s_names.hpp"
#include "util/json_access.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <set>

namespace kpt::apiserver {

namespace {

using json = nlohmann::json;

/// field.NotSupported: the values are listed in the order the Go code passes them (sorted where
/// it passes a set).
void check_one_of(const json& value, const std::string& field, std::initializer_list<const char*> allowed,
                  std::vector<StatusCause>& out) {
  if (!value.is_string() || value.get<std::string>().empty()) return;
  const auto text = value.get<std::string>();
  if (std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return text == a; })) return;
  std::string message = "Unsupported value: " + go_quote(text) + ": supported values: ";
  bool first = true;
  for (const char* a : allowed) {
    message += (first ? "" : ", ") + go_quote(a);
    first = false;
  }
  out.push_back({"FieldValueNotSupported", std::move(message), field});
}

void check_ports(const json& ports, const std::string& path, std::vector<StatusCause>& out) {
  if (!ports.is_array()) return;
  for (std::size_t i = 0; i < ports.size(); ++i) {
    check_one_of(util::member(ports[i], "protocol"), path + "[" + std::to_string(i) + "].protocol",
                 {"SCTP", "TCP", "UDP"}, out);
  }
}

/// field.Invalid for a value that must be a DNS-1123 label (a container name becomes a folder of
/// its logs, a hostname a line of the node's hosts file): ValidateDNS1123Label.
void check_label(const json& value, const std::string& field, std::vector<StatusCause>& out) {
  if (!value.is_string()) return;
  const auto text = value.get<std::string>();
  for (const auto& error : schema::dns1123_label_errors(text))
    out.push_back({"FieldValueInvalid", "Invalid value: " + go_quote(text) + ": " + error, field});
}

void check_containers(const json& containers, const std::string& path, std::set<std::string>& names,
                      std::vector<StatusCause>& out) {
  if (!containers.is_array()) return;
  for (std::size_t i = 0; i < containers.size(); ++i) {
    const std::string at = path + "[" + std::to_string(i) + "]";
    const json& name = util::member(containers[i], "name");
    if (name.is_string() && !name.get<std::string>().empty()) {
      check_label(name, at + ".name", out);
      if (!names.insert(name.get<std::string>()).second)
        out.push_back(
            {"FieldValueDuplicate", "Duplicate value: " + go_quote(name.get<std::string>()), at + ".name"});
    }
    check_one_of(util::member(containers[i], "imagePullPolicy"), at + ".imagePullPolicy",
                 {"Always", "IfNotPresent", "Never"}, out);
    check_ports(util::member(containers[i], "ports"), at + ".ports", out);
  }
}

void check_pod_spec(const json& spec, const std::string& path, std::vector<StatusCause>& out) {
  if (!spec.is_object()) return;
  std::set<std::string> names;  // unique across init and regular containers
  check_containers(util::member(spec, "initContainers"), path + ".initContainers", names, out);
  check_containers(util::member(spec, "containers"), path + ".containers", names, out);
  for (const char* field : {"hostname", "subdomain"}) {
    const json& value = util::member(spec, field);
    if (value.is_string() && !value.get<std::string>().empty()) check_label(value, path + "." + field, out);
  }
  check_one_of(util::member(spec, "restartPolicy"), path + ".restartPolicy", {"Always", "OnFailure", "Never"},
               out);
  check_one_of(util::member(spec, "dnsPolicy"), path + ".dnsPolicy",
               {"ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"}, out);
}

void check_job_spec(const json& spec, const std::string& path, std::vector<StatusCause>& out) {
  if (!spec.is_object()) return;
  check_one_of(util::member(spec, "completionMode"), path + ".completionMode", {"NonIndexed", "Indexed"},
               out);
  const json& pod_spec = util::member(util::member(spec, "template"), "spec");
  check_pod_spec(pod_spec, path + ".template.spec", out);
  // A Job's pods must end; the pod default (Always) is refused as the real server refuses it
  // after defaulting.
  const json& policy = util::member(pod_spec, "restartPolicy");
  const json seen = policy.is_string() && !policy.get<std::string>().empty() ? policy : json("Always");
  if (seen != "OnFailure" && seen != "Never") {
    check_one_of(seen, path + ".template.spec.restartPolicy", {"OnFailure", "Never"}, out);
  }
}

void check_service(const json& svc, std::vector<StatusCause>& out) {
  const json& spec = util::member(svc, "spec");
  check_one_of(util::member(spec, "type"), "spec.type",
               {"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"}, out);
  check_one_of(util::member(spec, "sessionAffinity"), "spec.sessionAffinity", {"ClientIP", "None"}, out);
  check_ports(util::member(spec, "ports"), "spec.ports", out);
}

// --- updates ---

constexpr const char* k_immutable_when_set = "Forbidden: field is immutable when `immutable` is set";

/// field.Invalid's rendering of a value: strings and numbers as Go prints them; other values as
/// JSON, where the real server prints the Go value of its internal type.
std::string shown_value(const json& value) {
  if (value.is_string()) return go_quote(value.get<std::string>());
  if (value.is_null()) return "\"null\"";  // Go prints a nil pointer as the string "null"
  return value.dump();
}

StatusCause immutable(const std::string& field, const json& new_value) {
  return {"FieldValueInvalid", "Invalid value: " + shown_value(new_value) + ": field is immutable", field};
}

/// The paths at which two JSON values differ, at most `limit` of them.
void differing_paths(const json& a, const json& b, const std::string& path, std::vector<std::string>& out,
                     std::size_t limit) {
  if (out.size() >= limit || a == b) return;
  if (a.is_object() && b.is_object()) {
    for (const auto& [key, value] : a.items()) {
      differing_paths(value, util::member(b, key.c_str()), path + "." + key, out, limit);
    }
    for (const auto& [key, value] : b.items()) {
      if (!a.contains(key)) differing_paths(json(), value, path + "." + key, out, limit);
    }
    return;
  }
  if (a.is_array() && b.is_array() && a.size() == b.size()) {
    for (std::size_t i = 0; i < a.size(); ++i) {
      differing_paths(a[i], b[i], path + "[" + std::to_string(i) + "]", out, limit);
    }
    return;
  }
  out.push_back(path);
}

/// Copies `field` of each of `from`'s containers into the same container of `to` (by position, as
/// ValidatePodUpdate does; a changed number of containers stays a difference).
void take_container_field(const json& from, json& to, const char* list, const char* field) {
  const json& source = util::member(from, list);
  if (!source.is_array() || !to.contains(list) || !to[list].is_array() || to[list].size() != source.size())
    return;
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (!to[list][i].is_object()) continue;
    if (const json& v = util::member(source[i], field); !v.is_null()) {
      to[list][i][field] = v;
    } else {
      to[list][i].erase(field);
    }
  }
}

void take_or_erase(const json& from, json& to, const char* field) {
  if (const json& v = util::member(from, field); !v.is_null()) {
    to[field] = v;
  } else {
    to.erase(field);
  }
}

bool contains_all(const json& list, const json& items) {
  if (!items.is_array()) return true;
  if (!list.is_array()) return items.empty();
  return std::all_of(items.begin(), items.end(), [&](const json& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
  });
}

std::vector<StatusCause> pod_update_rules(const json& old_pod, const json& new_pod) {
  std::vector<StatusCause> out;
  const json& old_spec = util::member(old_pod, "spec");
  const json& new_spec = util::member(new_pod, "spec");
  if (!old_spec.is_object() || !new_spec.is_object()) return out;

  const json& deadline = util::member(new_spec, "activeDeadlineSeconds");
  const json& old_deadline = util::member(old_spec, "activeDeadlineSeconds");
  if (deadline.is_number_integer()) {
    if (deadline.get<std::int64_t>() < 0 || deadline.get<std::int64_t>() > 2147483647) {
      return {{"FieldValueInvalid",
               "Invalid value: " + deadline.dump() + ": must be between 0 and 2147483647, inclusive",
               "spec.activeDeadlineSeconds"}};
    }
    if (old_deadline.is_number_integer() && old_deadline.get<std::int64_t>() < deadline.get<std::int64_t>()) {
      return {{"FieldValueInvalid",
               "Invalid value: " + deadline.dump() + ": must be less than or equal to previous value",
               "spec.activeDeadlineSeconds"}};
    }
  } else if (old_deadline.is_number_integer()) {
    out.push_back({"FieldValueInvalid",
                   "Invalid value: \"null\": must not update from a positive integer to nil value",
                   "spec.activeDeadlineSeconds"});
  }
  const json& gates = util::member(new_spec, "schedulingGates");
  if (gates.is_array()) {
    for (const auto& gate : gates) {
      if (contains_all(util::member(old_spec, "schedulingGates"), json::array({gate}))) continue;
      out.push_back(
          {"FieldValueForbidden",
           "Forbidden: only deletion is allowed, but found new scheduling gate '" +
               (util::member(gate, "name").is_string() ? util::member(gate, "name").get<std::string>()
                                                       : std::string()) +
               "'",
           "spec.schedulingGates"});
    }
  }

  // The spec as it would be had only the updatable fields changed.
  json munged = new_spec;
  take_container_field(old_spec, munged, "containers", "image");
  take_container_field(old_spec, munged, "initContainers", "image");
  take_or_erase(old_spec, munged, "activeDeadlineSeconds");
  take_or_erase(old_spec, munged, "schedulingGates");
  if (contains_all(util::member(new_spec, "tolerations"), util::member(old_spec, "tolerations")))
    take_or_erase(old_spec, munged, "tolerations");
  const json& grace = util::member(old_spec, "terminationGracePeriodSeconds");
  if (grace.is_number_integer() && grace.get<std::int64_t>() < 0 &&
      util::member(new_spec, "terminationGracePeriodSeconds") == 1)
    munged["terminationGracePeriodSeconds"] = grace;
  if (munged == old_spec) return out;

  std::vector<std::string> changed;
  differing_paths(old_spec, munged, "spec", changed, 8);
  std::string listed;
  for (const auto& p : changed) listed += (listed.empty() ? "" : ", ") + p;
  out.push_back(
      {"FieldValueForbidden",
       "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
       "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to "
       "existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was "
       "previously negative)\n  changed: " +
           listed,
       "spec"});
  return out;
}

std::vector<StatusCause> frozen_data_rules(const json& old_obj, const json& new_obj) {
  std::vector<StatusCause> out;
  if (util::member(old_obj, "immutable") != true) return out;
  if (util::member(new_obj, "immutable") != true)
    out.push_back({"FieldValueForbidden", k_immutable_when_set, "immutable"});
  for (const char* field : {"data", "binaryData"}) {
    // An empty map and none are the same Go value after decoding.
    const json& a = util::member(old_obj, field);
    const json& b = util::member(new_obj, field);
    const bool a_empty = a.is_null() || (a.is_object() && a.empty());
    const bool b_empty = b.is_null() || (b.is_object() && b.empty());
    if (a != b && !(a_empty && b_empty)) out.push_back({"FieldValueForbidden", k_immutable_when_set, field});
  }
  return out;
}

std::vector<StatusCause> job_update_rules(const json& old_job, const json& new_job) {
  std::vector<StatusCause> out;
  const json& old_spec = util::member(old_job, "spec");
  const json& new_spec = util::member(new_job, "spec");
  for (const char* field : {"selector", "completionMode", "podFailurePolicy", "managedBy", "successPolicy"}) {
    if (util::member(old_spec, field) != util::member(new_spec, field))
      out.push_back(immutable(std::string("spec.") + field, util::member(new_spec, field)));
  }
  json old_template = util::member(old_spec, "template");
  json new_template = util::member(new_spec, "template");
  if (old_template == new_template) return out;
  // A suspended Job's scheduling directives may change (validatePodTemplateUpdate), nothing else.
  if (util::member(old_spec, "suspend") == true && old_template.is_object() && new_template.is_object()) {
    for (const char* field : {"labels", "annotations"}) {
      take_or_erase(util::member(new_template, "metadata"), old_template["metadata"], field);
    }
    json& old_pod = old_template["spec"];
    if (old_pod.is_object()) {
      for (const char* field : {"nodeSelector", "affinity", "tolerations", "schedulingGates"}) {
        take_or_erase(util::member(new_template, "spec"), old_pod, field);
      }
    }
    if (old_template == new_template) return out;
  }
  out.push_back(immutable("spec.template", new_template));
  return out;
}

}  // namespace

std::vector<StatusCause> validate_value_sets(const std::string& group, const std::string& kind,
                                             const json& object) {
  std::vector<StatusCause> out;
  const json& spec = util::member(object, "spec");
  if (group.empty() && kind == "Pod") check_pod_spec(spec, "spec", out);
  if (group.empty() && kind == "Service") check_service(object, out);
  if (group == "apps" && kind == "Deployment")
    check_pod_spec(util::member(util::member(spec, "template"), "spec"), "spec.template.spec", out);
  if (group == "batch" && kind == "Job") check_job_spec(spec, "spec", out);
  if (group == "batch" && kind == "CronJob")
    check_job_spec(util::member(util::member(spec, "jobTemplate"), "spec"), "spec.jobTemplate.spec", out);
  return out;
}

std::vector<StatusCause> validate_update_rules(const std::string& group, const std::string& kind,
                                               const json& old_object, const json& new_object) {
  if (group.empty() && kind == "Pod") return pod_update_rules(old_object, new_object);
  if (group.empty() && kind == "ConfigMap") return frozen_data_rules(old_object, new_object);
  if (group.empty() && kind == "Secret") {
    auto out = frozen_data_rules(old_object, new_object);
    if (util::member(old_object, "type") != util::member(new_object, "type"))
      out.insert(out.begin(), immutable("type", util::member(new_object, "type")));
    return out;
  }
  if (group == "batch" && kind == "Job") return job_update_rules(old_object, new_object);
  return {};
}

}  // namespace kpt::apiserver
