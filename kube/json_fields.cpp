#include "kube/json_fields.hpp"

#include <nlohmann/json.hpp>

namespace kpt::kube {

std::string string_field(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return "";
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace kpt::kube
