#include "schema/trainer_fingerprint.hpp"

namespace kpt::schema {

namespace {

using model::trainjob::TrainerRelease;
using nlohmann::json;

const json* member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

/// spec.properties of the v1alpha1 schema, or null.
const json* spec_properties(const json& crd) {
  const json* spec = member(crd, "spec");
  const json* versions = spec != nullptr ? member(*spec, "versions") : nullptr;
  if (versions == nullptr || !versions->is_array()) return nullptr;
  for (const auto& v : *versions) {
    const json* name = member(v, "name");
    if (name == nullptr || *name != "v1alpha1") continue;
    const json* p = &v;
    for (const char* key : {"schema", "openAPIV3Schema", "properties", "spec", "properties"}) {
      p = member(*p, key);
      if (p == nullptr) return nullptr;
    }
    return p->is_object() ? p : nullptr;
  }
  return nullptr;
}

}  // namespace

std::vector<TrainerRelease> trainer_releases_matching_crd(const json& crd) {
  if (!crd.is_object()) return {};
  const json* spec = spec_properties(crd);
  if (spec == nullptr) return {};
  if (spec->contains("podSpecOverrides")) return {{2, 0, 0}, {2, 0, 1}};
  if (spec->contains("podTemplateOverrides")) return {{2, 1, 0}};
  if (!spec->contains("runtimePatches")) return {};
  const std::string patches = (*spec)["runtimePatches"].dump();
  const std::string initializer = spec->contains("initializer") ? (*spec)["initializer"].dump() : "";
  if (patches.find("terminationGracePeriodSeconds") != std::string::npos ||
      initializer.find("storageUri may be empty") != std::string::npos) {
    return {{2, 3, 0}};
  }
  return {{2, 2, 0}, {2, 2, 1}};
}

}  // namespace kpt::schema
