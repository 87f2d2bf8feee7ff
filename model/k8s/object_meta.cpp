#include "model/k8s/object_meta.hpp"

#include "util/json_access.hpp"

#include <nlohmann/json.hpp>

namespace kpt::model::k8s {

std::string meta_string(const nlohmann::json& object, std::string_view field) {
  return util::string_at(util::member(object, "metadata"), field);
}

std::string name_of(const nlohmann::json& object) { return meta_string(object, "name"); }
std::string namespace_of(const nlohmann::json& object) { return meta_string(object, "namespace"); }
std::string uid_of(const nlohmann::json& object) { return meta_string(object, "uid"); }

nlohmann::json controller_reference(std::string_view api_version, std::string_view kind,
                                    const nlohmann::json& owner) {
  return {{"apiVersion", api_version}, {"kind", kind},       {"name", name_of(owner)},
          {"uid", uid_of(owner)},      {"controller", true}, {"blockOwnerDeletion", true}};
}

std::string label_of(const nlohmann::json& object, std::string_view key) {
  const nlohmann::json* labels = util::at_path(object, "metadata.labels");
  return labels != nullptr ? util::string_at(*labels, key) : "";
}

}  // namespace kpt::model::k8s
