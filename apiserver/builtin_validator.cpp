// The validator of the built-in kinds: the project's structural validator on the schemas generated
// from the Kubernetes definitions (schema/builtin/), its findings told as kube-apiserver tells them.
#include "apiserver/go_decode_error.hpp"
#include "apiserver/kind_rules.hpp"
#include "apiserver/object_meta_validation.hpp"
#include "apiserver/validator.hpp"
#include "schema/builtin/builtin_schema.hpp"
#include "schema/structural_schema.hpp"
#include "yaml/node_json.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <string_view>

namespace kpt::apiserver {

namespace {

using json = nlohmann::json;

/// Appends to `out` the JSON pointer of `rest` of a field path ("spec.containers[0].foo") inside
/// `at`; a map key may hold dots, so each key of `at` that `rest` starts with is tried.
bool locate(const json& at, std::string_view rest, json::json_pointer& out) {
  if (rest.empty()) return true;
  if (rest.front() == '[' && at.is_array()) {
    const auto close = rest.find(']');
    if (close == std::string_view::npos) return false;
    std::size_t index = 0;
    const auto digits = rest.substr(1, close - 1);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (ec != std::errc() || end != digits.data() + digits.size() || index >= at.size()) return false;
    out /= index;
    rest.remove_prefix(close + 1);
    if (!rest.empty() && rest.front() == '.') rest.remove_prefix(1);
    if (locate(at[index], rest, out)) return true;
    out.pop_back();
    return false;
  }
  if (!at.is_object()) return false;
  for (const auto& [key, value] : at.items()) {
    if (rest.substr(0, key.size()) != key) continue;
    std::string_view after = rest.substr(key.size());
    if (!after.empty() && after.front() != '.' && after.front() != '[') continue;
    if (!after.empty() && after.front() == '.') after.remove_prefix(1);
    out /= key;
    if (locate(value, after, out)) return true;
    out.pop_back();
  }
  return false;
}

/// The field error a CEL rule of the generated schema stands for: its message is the error's body.
StatusCause cel_cause(const Diagnostic& d) {
  static const std::pair<const char*, const char*> k_types[] = {
      {"Required value", "FieldValueRequired"},
      {"Unsupported value", "FieldValueNotSupported"},
      {"Forbidden", "FieldValueForbidden"},
      {"Too long", "FieldValueTooLong"}};
  for (const auto& [prefix, reason] : k_types) {
    if (d.message.rfind(prefix, 0) == 0) return {reason, d.message, d.field_path};
  }
  return {"FieldValueInvalid", d.message, d.field_path};
}

bool is_decode_finding(const Diagnostic& d) {
  return d.severity == Severity::error &&
         (d.rule_id == "schema.type" || d.rule_id == "schema.format" || d.rule_id == "schema.quantity");
}

class BuiltinValidator final : public ObjectValidator {
 public:
  BuiltinValidator(const schema::StructuralSchema& schema, std::string group, std::string version,
                   std::string kind, bool namespaced)
      : m_schema(schema),
        m_group(std::move(group)),
        m_api_version(m_group.empty() ? version : m_group + "/" + version),
        m_kind(std::move(kind)),
        m_namespaced(namespaced) {}

  [[nodiscard]] ValidationOutcome validate(const json& object) const override {
    ValidationOutcome out;
    yaml::Document doc;
    doc.file = "<request>";
    doc.root = yaml::from_json(object);
    schema::StructuralOptions opts;
    opts.unknown_fields_are_errors = false;
    opts.metadata_from_schema = true;
    for (const auto& d : schema::validate_structure(doc, m_schema, opts)) {
      if (d.rule_id == "schema.unknown-field") {
        add_unknown(object, d.field_path, out);
      } else if (is_decode_finding(d)) {
        if (out.decode_error.empty()) out.decode_error = decode_error(object, d);
      } else if (d.severity != Severity::error) {
        continue;  // nulls the decoder drops, rules it could not check
      } else if (d.rule_id == "schema.required" || d.rule_id == "schema.min-length") {
        out.errors.push_back({"FieldValueRequired", "Required value", d.field_path});
      } else if (d.rule_id == "schema.cel") {
        out.errors.push_back(cel_cause(d));
      } else {
        out.errors.push_back({"FieldValueInvalid", d.message, d.field_path});
      }
    }
    return out;
  }

  [[nodiscard]] std::vector<StatusCause> validate_stored(const json& object) const override {
    auto out = validate_object_meta(object, name_rule_of(m_group, m_kind), m_namespaced);
    auto rules = validate_kind_rules(m_group, m_kind, object);
    out.insert(out.end(), rules.begin(), rules.end());
    auto values = validate_value_sets(m_group, m_kind, object);
    out.insert(out.end(), values.begin(), values.end());
    return out;
  }

  [[nodiscard]] std::vector<StatusCause> validate_update(const json& old_object,
                                                         const json& object) const override {
    return validate_update_rules(m_group, m_kind, old_object, object);
  }

 private:
  static void add_unknown(const json& object, const std::string& path, ValidationOutcome& out) {
    out.strict_errors.push_back("unknown field " + go_quote(path));
    json::json_pointer pointer;
    if (locate(object, path, pointer)) out.unknown_pointers.push_back(std::move(pointer));
  }

  [[nodiscard]] std::string decode_error(const json& object, const Diagnostic& d) const {
    auto message = GoTypes::builtin().type_error(m_api_version, m_kind, object, d.field_path);
    return message.empty() ? d.field_path + ": " + d.message : message;
  }

  const schema::StructuralSchema& m_schema;
  std::string m_group;
  std::string m_api_version;
  std::string m_kind;
  bool m_namespaced;
};

}  // namespace

std::shared_ptr<const ObjectValidator> make_builtin_validator(const std::string& group,
                                                              const std::string& version,
                                                              const std::string& kind, bool namespaced) {
  const std::string api_version = group.empty() ? version : group + "/" + version;
  const auto* compiled = schema::builtin_schemas().find(api_version, kind);
  if (compiled == nullptr) return nullptr;
  return std::make_shared<BuiltinValidator>(*compiled, group, version, kind, namespaced);
}

}  // namespace kpt::apiserver
