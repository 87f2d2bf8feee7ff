#include "model/trainjob/runtime_ref.hpp"

#include "model/trainjob/constants.hpp"
#include "model/trainjob/runtime_catalog.hpp"
#include "util/json_access.hpp"
#include "yaml/node_json.hpp"
#include "yaml/yaml_writer.hpp"

namespace kpt::model::trainjob {

namespace {

using nlohmann::json;

using util::string_at;

const json& metadata_of(const json& object) { return util::object_at(object, "metadata"); }

/// The API server's NotFound text: `trainingruntimes.trainer.kubeflow.org "x" not found`.
std::string not_found_text(const RuntimeRef& ref) {
  const std::string resource =
      ref.kind == k_kind_training_runtime ? "trainingruntimes" : "clustertrainingruntimes";
  return resource + "." + k_group + " \"" + ref.name + "\" not found";
}

const json* find_runtime(const RuntimeRef& ref, const std::string& ns, const AvailableRuntimes& available) {
  const bool namespaced = ref.kind == k_kind_training_runtime;
  const auto& pool = namespaced ? available.training_runtimes : available.cluster_training_runtimes;
  for (const auto& runtime : pool) {
    const json& meta = metadata_of(runtime);
    if (string_at(meta, "name") != ref.name) continue;
    if (namespaced && string_at(meta, "namespace") != ns) continue;
    return &runtime;
  }
  return nullptr;
}

Error missing_runtime_error(const RuntimeRef& ref, LookupBy by) {
  const bool namespaced = ref.kind == k_kind_training_runtime;
  const std::string err = not_found_text(ref);
  if (by == LookupBy::controller) {
    return make_error(ErrorCode::not_found,
                      namespaced ? "TrainingRuntime specified in TrainJob is not found: " + err
                                 : "not found ClusterTrainingRuntime specified in TrainJob: " + err);
  }
  const std::string path = namespaced ? "spec.runtimeRef" : "spec.RuntimeRef";
  const std::string what = namespaced ? "trainingRuntime" : "clusterTrainingRuntime";
  return make_error(ErrorCode::not_found, path + ": Invalid value: " + ref.to_json_text() + ": " + err +
                                              ": specified " + what +
                                              " must be created before the TrainJob is created");
}

/// "invalid runtime snapshot: the snapshot refers to the wrong runtime: ..." when the snapshot's
/// name, group or kind differ from the TrainJob's runtimeRef (unset kind/group match anything).
std::optional<Error> snapshot_mismatch(const json& runtime, const RuntimeRef& ref) {
  const std::string api_version = string_at(runtime, "apiVersion");
  const std::string group =
      api_version.find('/') == std::string::npos ? "" : api_version.substr(0, api_version.find('/'));
  const std::string kind = string_at(runtime, "kind");
  const std::string name = string_at(metadata_of(runtime), "name");
  const bool kind_mismatch = ref.kind_set && kind != ref.kind;
  const bool group_mismatch = ref.api_group_set && group != ref.api_group;
  if (!kind_mismatch && !group_mismatch && name == ref.name) return std::nullopt;
  const std::string expected_group = ref.api_group_set ? ref.api_group : "<any>";
  const std::string expected_kind = ref.kind_set ? ref.kind : "<any>";
  return make_error(
      ErrorCode::parse,
      "invalid runtime snapshot: the snapshot refers to the wrong runtime: expecting a runtime with "
      "name, api group and kind of \"" +
          ref.name + "\", \"" + expected_group + "\", \"" + expected_kind +
          "\" but found runtime with name, api group and kind of \"" + name + "\", \"" + group + "\", \"" +
          kind + "\"");
}

bool controlled_by(const json& object, const std::string& uid) {
  for (const auto& owner : util::array_at(object, "metadata.ownerReferences")) {
    if (util::bool_at(owner, "controller")) return string_at(owner, "uid") == uid;
  }
  return false;
}

}  // namespace

bool RuntimeRef::supported() const {
  return api_group == k_group && (kind == k_kind_training_runtime || kind == k_kind_cluster_training_runtime);
}

std::string RuntimeRef::to_json_text() const {
  // Go marshals the struct in field order and omits unset pointers.
  std::string out = "{\"name\":" + json(name).dump();
  if (api_group_set) out += ",\"apiGroup\":" + json(api_group).dump();
  if (kind_set) out += ",\"kind\":" + json(kind).dump();
  return out + "}";
}

const json* trainer_of(const json& trainjob) {
  const json* trainer = util::at_path(trainjob, "spec.trainer");
  return trainer != nullptr && trainer->is_object() ? trainer : nullptr;
}

RuntimeRef runtime_ref_of(const json& trainjob) {
  RuntimeRef ref;
  const json& raw = util::object_at(trainjob, "spec.runtimeRef");
  ref.name = string_at(raw, "name");
  ref.api_group_set = raw.is_object() && raw.contains("apiGroup") && raw["apiGroup"].is_string();
  ref.kind_set = raw.is_object() && raw.contains("kind") && raw["kind"].is_string();
  ref.api_group = ref.api_group_set ? raw["apiGroup"].get<std::string>() : k_group;
  ref.kind = ref.kind_set ? raw["kind"].get<std::string>() : k_kind_cluster_training_runtime;
  return ref;
}

AvailableRuntimes with_carried_runtimes(AvailableRuntimes available, TrainerRelease release) {
  for (auto& runtime : carried_runtimes(release)) {
    const std::string name = string_at(metadata_of(runtime), "name");
    bool present = false;
    for (const auto& existing : available.cluster_training_runtimes) {
      present = present || string_at(metadata_of(existing), "name") == name;
    }
    if (!present) available.cluster_training_runtimes.push_back(std::move(runtime));
  }
  return available;
}

Expected<json> resolve_runtime(const json& trainjob, const AvailableRuntimes& available, LookupBy by) {
  const RuntimeRef ref = runtime_ref_of(trainjob);
  if (!ref.supported()) return make_error(ErrorCode::usage, "unsupported runtime: " + ref.registry_key());
  const json* found = find_runtime(ref, string_at(metadata_of(trainjob), "namespace"), available);
  if (found == nullptr) return missing_runtime_error(ref, by);
  return *found;
}

std::string deprecated_runtime_warning(const json& runtime) {
  const json& meta = metadata_of(runtime);
  if (!meta.contains("labels") || !meta["labels"].is_object()) return "";
  if (string_at(meta["labels"], k_label_support) != "deprecated") return "";
  return "Referenced ClusterTrainingRuntime \"" + string_at(meta, "name") +
         "\" is deprecated and will be removed in a future release of Kubeflow Trainer. See runtime "
         "deprecation "
         "policy: "
         "https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html#runtime-deprecation-policy";
}

json runtime_snapshot_configmap(const json& trainjob, const json& runtime) {
  const json& meta = metadata_of(trainjob);
  const json owner = {
      {"apiVersion", k_api_version},   {"kind", k_kind_trainjob}, {"name", string_at(meta, "name")},
      {"uid", string_at(meta, "uid")}, {"controller", true},      {"blockOwnerDeletion", true}};
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata",
           {{"name", string_at(meta, "name") + k_snapshot_suffix},
            {"namespace", string_at(meta, "namespace")},
            {"ownerReferences", json::array({owner})}}},
          {"data", {{k_snapshot_key, yaml::to_yaml(runtime)}}}};
}

Expected<json> runtime_from_snapshot(const json& configmap, const json& trainjob) {
  if (!controlled_by(configmap, string_at(metadata_of(trainjob), "uid"))) {
    return make_error(ErrorCode::parse,
                      "invalid runtime snapshot: a snapshot configmap exists but is owned by another object");
  }
  const json& data = util::object_at(configmap, "data");
  if (!data.contains(k_snapshot_key) || !data[k_snapshot_key].is_string()) {
    return make_error(ErrorCode::parse,
                      "invalid runtime snapshot: snapshot ConfigMap missing \"runtime\" data key");
  }
  auto parsed = yaml::yaml_to_json(k_snapshot_key, data[k_snapshot_key].get<std::string>());
  if (!parsed) {
    return make_error(
        ErrorCode::parse,
        "invalid runtime snapshot: unable to unmarshal the snapshot: error converting YAML to JSON: " +
            parsed.error().message);
  }
  if (auto mismatch = snapshot_mismatch(*parsed, runtime_ref_of(trainjob))) return *mismatch;
  return std::move(*parsed);
}

Expected<ReconcileRuntime> runtime_for_reconcile(const json& trainjob, const json* snapshot,
                                                 const AvailableRuntimes& available, TrainerRelease release) {
  const RuntimeRef ref = runtime_ref_of(trainjob);
  if (!ref.supported()) return make_error(ErrorCode::usage, "unsupported runtime: " + ref.registry_key());
  const bool use_snapshot = features_of(release).runtime_snapshot;
  if (use_snapshot && snapshot != nullptr) {
    auto from_snapshot = runtime_from_snapshot(*snapshot, trainjob);
    if (!from_snapshot) {
      const char* prefix =
          ref.kind == k_kind_training_runtime ? "unable to get runtime snapshot" : "getting runtime snapshot";
      return from_snapshot.error().context(prefix);
    }
    return ReconcileRuntime{std::move(*from_snapshot), false};
  }
  auto live = resolve_runtime(trainjob, available, LookupBy::controller);
  if (!live) return live.error();
  return ReconcileRuntime{std::move(*live), use_snapshot};
}

}  // namespace kpt::model::trainjob
