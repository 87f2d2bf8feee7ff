#include <nlohmann/json.hpp>

#include "apiserver/validator.hpp"

namespace kpt::apiserver {

namespace {

/// The built-in validator: a walk of the object beside the schema. It covers what users
/// trip over (misspelt or misplaced fields, wrong types, missing required fields, enums).
class BasicValidator final : public ObjectValidator {
 public:
  explicit BasicValidator(nlohmann::json schema) : m_schema(std::move(schema)) {}

  [[nodiscard]] ValidationOutcome validate(const nlohmann::json& object) const override {
    ValidationOutcome out;
    walk(object, m_schema, "", out, true);
    return out;
  }

 private:
  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  static bool type_matches(const std::string& type, const nlohmann::json& v) {
    if (type == "object") return v.is_object();
    if (type == "array") return v.is_array();
    if (type == "string") return v.is_string();
    if (type == "integer") return v.is_number_integer();
    if (type == "number") return v.is_number();
    if (type == "boolean") return v.is_boolean();
    return true;
  }

  static void walk(const nlohmann::json& v, const nlohmann::json& s, const std::string& path,
                   ValidationOutcome& out, bool top) {
    if (!s.is_object() || v.is_null()) return;
    if (s.value("x-kubernetes-int-or-string", false)) {
      if (!v.is_string() && !v.is_number_integer()) {
        out.errors.push_back({"FieldValueInvalid", "Invalid value: must be an integer or a string", path});
      }
      return;
    }
    const std::string type = s.value("type", "");
    if (!type.empty() && !type_matches(type, v)) {
      out.errors.push_back({"FieldValueTypeInvalid",
                            "Invalid value: \"" + std::string(v.type_name()) + "\": " + path + " in body must be of type " +
                                type + ": \"" + std::string(v.type_name()) + "\"",
                            path});
      return;
    }
    if (s.contains("enum") && s["enum"].is_array()) {
      bool found = false;
      for (const auto& e : s["enum"]) found = found || e == v;
      if (!found) {
        out.errors.push_back({"FieldValueNotSupported", "Unsupported value: " + v.dump(), path});
      }
    }
    if (v.is_object()) {
      if (s.contains("required") && s["required"].is_array()) {
        for (const auto& r : s["required"]) {
          if (r.is_string() && !v.contains(r.get<std::string>())) {
            out.errors.push_back({"FieldValueRequired", "Required value", join(path, r.get<std::string>())});
          }
        }
      }
      const bool preserve = s.value("x-kubernetes-preserve-unknown-fields", false);
      const auto props = s.find("properties");
      const auto additional = s.find("additionalProperties");
      for (const auto& [key, child] : v.items()) {
        if (top && (key == "apiVersion" || key == "kind" || key == "metadata")) continue;
        if (props != s.end() && props->contains(key)) {
          walk(child, (*props)[key], join(path, key), out, false);
        } else if (additional != s.end() && additional->is_object()) {
          walk(child, *additional, join(path, key), out, false);
        } else if (!preserve && !(additional != s.end() && additional->is_boolean() && additional->get<bool>())) {
          out.unknown_fields.push_back({"FieldValueInvalid", "unknown field \"" + join(path, key) + "\"",
                                        join(path, key)});
        }
      }
    } else if (v.is_array() && s.contains("items")) {
      for (std::size_t i = 0; i < v.size(); ++i) {
        walk(v[i], s["items"], path + "[" + std::to_string(i) + "]", out, false);
      }
    }
  }

  nlohmann::json m_schema;
};

}  // namespace

std::shared_ptr<const ObjectValidator> make_basic_validator(const nlohmann::json& open_api_v3_schema) {
  return std::make_shared<BasicValidator>(open_api_v3_schema);
}

}  // namespace kpt::apiserver
