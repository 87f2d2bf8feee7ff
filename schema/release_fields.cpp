#include "schema/release_fields.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <tuple>

namespace kpt::schema {
namespace {

using model::pytorchjob::Release;

constexpr Release v1_4{1, 4, 0};
constexpr Release v1_5{1, 5, 0};
constexpr Release v1_6{1, 6, 0};
constexpr Release v1_7{1, 7, 0};
constexpr Release v1_8{1, 8, 0};
constexpr Release v1_9{1, 9, 0};
constexpr Release v1_9_4{1, 9, 4};

// PyTorchJob fields: the release that added each to manifests/base/crds/kubeflow.org_pytorchjobs.yaml
// (kubeflow/trainer, read at every v1 tag). Pod template fields: that CRD where it names them (grpc v1.5.0,
// resizePolicy and schedulingGates v1.7.0, lifecycle sleep v1.8.0, restartPolicyRules and
// stopSignal v1.9.4); the others are dated by the Kubernetes release that added them and the
// k8s.io/api version each operator release was generated with (v1.5: 0.24, v1.6: 0.25,
// v1.7: 0.27, v1.8: 0.29, v1.9.0: 0.31, v1.9.4: 1.36), checked against the v1.7.0 CRD.
#define KPT_POD "spec.pytorchReplicaSpecs.*.template.spec."
#define KPT_CONTAINER KPT_POD "#containers."

constexpr ReleaseField k_fields[] = {
    {"spec.elasticPolicy", v1_4},
    {"spec.runPolicy.schedulingPolicy.scheduleTimeoutSeconds", v1_6},
    {"spec.nprocPerNode", v1_7},
    {"spec.runPolicy.suspend", v1_7},
    {"spec.runPolicy.managedBy", v1_9},
    // Pod template, k8s 0.24 (v1.5.0).
    {KPT_CONTAINER "livenessProbe.grpc", v1_5},
    {KPT_CONTAINER "readinessProbe.grpc", v1_5},
    {KPT_CONTAINER "startupProbe.grpc", v1_5},
    {KPT_POD "os", v1_5},
    {KPT_POD "topologySpreadConstraints[].minDomains", v1_5},
    // k8s 0.25 (v1.6.0).
    {KPT_POD "hostUsers", v1_6},
    // k8s 0.27 (v1.7.0).
    {KPT_CONTAINER "resizePolicy", v1_7},
    {KPT_POD "schedulingGates", v1_7},
    {KPT_POD "resourceClaims", v1_7},
    {KPT_CONTAINER "resources.claims", v1_7},
    {KPT_POD "topologySpreadConstraints[].matchLabelKeys", v1_7},
    {KPT_POD "topologySpreadConstraints[].nodeAffinityPolicy", v1_7},
    {KPT_POD "topologySpreadConstraints[].nodeTaintsPolicy", v1_7},
    // k8s 0.29 (v1.8.0).
    {KPT_CONTAINER "lifecycle.postStart.sleep", v1_8},
    {KPT_CONTAINER "lifecycle.preStop.sleep", v1_8},
    {KPT_CONTAINER "restartPolicy", v1_8},
    {KPT_POD "volumes[].projected.sources[].clusterTrustBundle", v1_8},
    // k8s 0.31 (v1.9.0).
    {KPT_CONTAINER "securityContext.appArmorProfile", v1_9},
    {KPT_POD "securityContext.appArmorProfile", v1_9},
    {KPT_POD "securityContext.supplementalGroupsPolicy", v1_9},
    {KPT_CONTAINER "volumeMounts[].recursiveReadOnly", v1_9},
    {KPT_POD "volumes[].image", v1_9},
    {KPT_POD "resourceClaims[].resourceClaimName", v1_9},
    {KPT_POD "resourceClaims[].resourceClaimTemplateName", v1_9},
    {KPT_CONTAINER "resources.claims[].request", v1_9},
    // k8s 1.36 (v1.9.4).
    {KPT_CONTAINER "restartPolicyRules", v1_9_4},
    {KPT_CONTAINER "lifecycle.stopSignal", v1_9_4},
    {KPT_CONTAINER "env[].valueFrom.fileKeyRef", v1_9_4},
    {KPT_POD "resources", v1_9_4},
    {KPT_POD "securityContext.seLinuxChangePolicy", v1_9_4},
    {KPT_POD "hostnameOverride", v1_9_4},
    {KPT_POD "schedulingGroup", v1_9_4},
    {KPT_POD "volumes[].projected.sources[].podCertificate", v1_9_4},
};
#undef KPT_CONTAINER
#undef KPT_POD

constexpr std::array<std::string_view, 3> k_container_lists{"containers", "initContainers",
                                                            "ephemeralContainers"};

struct Match {
  std::string path;
  yaml::Position pos;
};

// One pattern segment: a key (or `*`), optionally followed by `[]`.
struct Segment {
  std::string_view key;
  bool each_item = false;
};

std::vector<Segment> split(std::string_view pattern) {
  std::vector<Segment> out;
  while (!pattern.empty()) {
    const auto dot = pattern.find('.');
    std::string_view part = pattern.substr(0, dot);
    pattern = dot == std::string_view::npos ? std::string_view{} : pattern.substr(dot + 1);
    Segment seg;
    if (part.size() > 2 && part.substr(part.size() - 2) == "[]") {
      seg.each_item = true;
      part.remove_suffix(2);
    }
    seg.key = part;
    out.push_back(seg);
  }
  return out;
}

void match(const yaml::Node& node, const std::vector<Segment>& segs, std::size_t at, const std::string& path,
           std::vector<Match>& out);

void match_value(const yaml::Node& value, yaml::Position key_pos, const std::vector<Segment>& segs,
                 std::size_t at, bool each_item, const std::string& path, std::vector<Match>& out) {
  if (at + 1 == segs.size() && !each_item) {
    out.push_back({path, key_pos});
    return;
  }
  if (!each_item) {
    match(value, segs, at + 1, path, out);
    return;
  }
  if (!value.is_seq()) return;
  for (std::size_t i = 0; i < value.items.size(); ++i) {
    const std::string item_path = path + "[" + std::to_string(i) + "]";
    if (at + 1 == segs.size()) {
      out.push_back({item_path, value.items[i].pos});
    } else {
      match(value.items[i], segs, at + 1, item_path, out);
    }
  }
}

void match(const yaml::Node& node, const std::vector<Segment>& segs, std::size_t at, const std::string& path,
           std::vector<Match>& out) {
  if (!node.is_map() || at >= segs.size()) return;
  const Segment& seg = segs[at];
  const auto prefix = path.empty() ? path : path + ".";
  for (std::size_t k = 0; k < node.keys.size(); ++k) {
    const std::string& key = node.keys[k];
    const bool hit =
        seg.key == "*" || seg.key == key ||
        (seg.key == "#containers" &&
         std::find(k_container_lists.begin(), k_container_lists.end(), key) != k_container_lists.end());
    if (!hit) continue;
    const bool each_item = seg.each_item || seg.key == "#containers";
    const yaml::Position key_pos = k < node.key_positions.size() ? node.key_positions[k] : node.pos;
    match_value(node.items[k], key_pos, segs, at, each_item, prefix + key, out);
  }
}

bool is_pytorchjob(const yaml::Node& root) {
  const yaml::Node* kind = root.find("kind");
  const yaml::Node* api_version = root.find("apiVersion");
  return kind != nullptr && kind->is_string() && kind->text == "PyTorchJob" && api_version != nullptr &&
         api_version->is_string() && api_version->text.rfind("kubeflow.org/", 0) == 0;
}

bool is_inside(const std::string& path, const std::string& outer) {
  return path.size() > outer.size() && path.compare(0, outer.size(), outer) == 0 &&
         (path[outer.size()] == '.' || path[outer.size()] == '[');
}

}  // namespace

std::span<const ReleaseField> release_fields() { return k_fields; }

Diagnostics check_release_fields(const yaml::Document& doc, model::pytorchjob::Release release) {
  Diagnostics out;
  if (!is_pytorchjob(doc.root)) return out;
  for (const auto& field : k_fields) {
    if (release >= field.added_in) continue;
    std::vector<Match> found;
    match(doc.root, split(field.path), 0, "", found);
    for (auto& m : found) {
      Diagnostic d;
      d.severity = Severity::error;
      d.location = {doc.file, m.pos.line, m.pos.col};
      d.field_path = std::move(m.path);
      d.rule_id = "release.unknown-field";
      d.message = "field '" + d.field_path + "' is not known to operator " + release.to_string() +
                  " (added in " + field.added_in.to_string() + ")";
      d.hint = "upgrade the operator to " + field.added_in.to_string() + " or later, or remove the field";
      out.push_back(std::move(d));
    }
  }
  // Keep the outermost finding of a subtree, in document order.
  std::sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.location.line, a.location.col, a.field_path) <
           std::tie(b.location.line, b.location.col, b.field_path);
  });
  std::vector<bool> nested(out.size(), false);
  for (std::size_t i = 0; i < out.size(); ++i) {
    for (const auto& outer : out) nested[i] = nested[i] || is_inside(out[i].field_path, outer.field_path);
  }
  Diagnostics kept;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!nested[i]) kept.push_back(std::move(out[i]));
  }
  return kept;
}

}  // namespace kpt::schema
