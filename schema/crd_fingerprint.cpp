#include "schema/crd_fingerprint.hpp"

#include <algorithm>
#include <string_view>

namespace kpt::schema {
namespace {

using model::pytorchjob::Release;

// A schema feature whose presence says "this release or newer".
struct Probe {
  std::string_view path;  // '/'-separated keys below openAPIV3Schema
  Release added_in;
};

// Paths walk the schema itself: `properties`, `additionalProperties`, `items` spelled out.
#define KPT_SPEC "properties/spec/properties/"
#define KPT_RUN_POLICY KPT_SPEC "runPolicy/properties/"
#define KPT_CONTAINER                                                                        \
  KPT_SPEC                                                                                   \
  "pytorchReplicaSpecs/additionalProperties/properties/template/properties/spec/properties/" \
  "containers/items/properties/"

constexpr Probe k_probes[] = {
    {KPT_SPEC "elasticPolicy", {1, 4, 0}},
    {KPT_CONTAINER "livenessProbe/properties/grpc", {1, 5, 0}},
    {KPT_RUN_POLICY "schedulingPolicy/properties/scheduleTimeoutSeconds", {1, 6, 0}},
    {KPT_SPEC "nprocPerNode", {1, 7, 0}},
    {KPT_RUN_POLICY "suspend", {1, 7, 0}},
    {KPT_RUN_POLICY "schedulingPolicy/properties/queue/x-kubernetes-validations", {1, 8, 0}},
    {KPT_RUN_POLICY "managedBy", {1, 9, 0}},
    {KPT_CONTAINER "restartPolicyRules", {1, 9, 4}},
};
#undef KPT_CONTAINER
#undef KPT_RUN_POLICY
#undef KPT_SPEC

struct GeneratorVersion {
  std::string_view version;
  Release first;
  Release last;
};

// The controller-gen version in each release's CRD annotation (manifests/base/crds/, read at every v1 tag).
constexpr GeneratorVersion k_generators[] = {
    {"v0.6.0", {1, 3, 0}, {1, 5, 0}},  {"v0.10.0", {1, 6, 0}, {1, 6, 0}}, {"v0.12.0", {1, 7, 0}, {1, 7, 0}},
    {"v0.14.0", {1, 8, 0}, {1, 8, 1}}, {"v0.16.5", {1, 9, 0}, {1, 9, 4}},
};

const yaml::Node* open_api_schema(const yaml::Node& crd) {
  const yaml::Node* versions = crd.at_path({"spec", "versions"});
  if (versions == nullptr || !versions->is_seq()) return nullptr;
  for (const auto& version : versions->items) {
    const yaml::Node* name = version.find("name");
    if (name != nullptr && name->text == "v1") return version.at_path({"schema", "openAPIV3Schema"});
  }
  return nullptr;
}

bool has_path(const yaml::Node& root, std::string_view path) {
  const yaml::Node* node = &root;
  while (node != nullptr && !path.empty()) {
    const auto slash = path.find('/');
    node = node->find(path.substr(0, slash));
    path = slash == std::string_view::npos ? std::string_view{} : path.substr(slash + 1);
  }
  return node != nullptr;
}

}  // namespace

std::vector<Release> releases_matching_crd(const yaml::Node& crd_root) {
  std::vector<Release> out;
  const yaml::Node* kind = crd_root.at_path({"spec", "names", "kind"});
  const yaml::Node* schema = open_api_schema(crd_root);
  if (kind == nullptr || kind->text != "PyTorchJob" || schema == nullptr) return out;

  const yaml::Node* generator =
      crd_root.at_path({"metadata", "annotations", "controller-gen.kubebuilder.io/version"});
  // An unknown generator says nothing; a known one bounds the releases the probes may pick.
  const auto generated_by =
      generator != nullptr ? releases_from_generator(generator->text) : std::vector<Release>{};

  for (const auto& release : model::pytorchjob::k_releases) {
    if (!generated_by.empty() &&
        std::find(generated_by.begin(), generated_by.end(), release) == generated_by.end()) {
      continue;
    }
    // Nothing was ever removed, so a release matches when it has exactly the probes it added.
    const bool all_agree = std::all_of(std::begin(k_probes), std::end(k_probes), [&](const Probe& probe) {
      return has_path(*schema, probe.path) == (release >= probe.added_in);
    });
    if (all_agree) out.push_back(release);
  }
  return out;
}

std::vector<Release> releases_from_generator(std::string_view controller_gen_version) {
  std::vector<Release> out;
  for (const auto& g : k_generators) {
    if (g.version != controller_gen_version) continue;
    for (const auto& r : model::pytorchjob::k_releases) {
      if (r >= g.first && r <= g.last) out.push_back(r);
    }
  }
  return out;
}

}  // namespace kpt::schema
