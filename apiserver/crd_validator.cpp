#include "apiserver/schema_defaults.hpp"
#include "apiserver/validator.hpp"
#include "schema/structural_schema.hpp"
#include "yaml/node_json.hpp"

#include <nlohmann/json.hpp>

namespace kpt::apiserver {

namespace {

class StructuralValidator final : public ObjectValidator {
 public:
  StructuralValidator(schema::SchemaSet set, nlohmann::json open_api_v3_schema, std::string api_version,
                      std::string kind)
      : m_set(std::move(set)),
        m_schema(std::move(open_api_v3_schema)),
        m_api_version(std::move(api_version)),
        m_kind(std::move(kind)) {}

  void default_object(nlohmann::json& object) const override { apply_schema_defaults(object, m_schema); }

  [[nodiscard]] ValidationOutcome validate(const nlohmann::json& object) const override {
    ValidationOutcome out;
    const auto* compiled = m_set.find(m_api_version, m_kind);
    if (compiled == nullptr) return out;
    yaml::Document doc;
    doc.file = "<request>";
    doc.root = yaml::from_json(object);
    schema::StructuralOptions opts;
    opts.unknown_fields_are_errors = false;
    for (const auto& d : schema::validate_structure(doc, *compiled, opts)) {
      StatusCause cause{"FieldValueInvalid", d.message, d.field_path};
      if (d.rule_id.find("unknown") != std::string::npos) {
        out.unknown_fields.push_back(cause);
      } else if (d.severity == Severity::error) {
        out.errors.push_back(cause);
      }
    }
    return out;
  }

 private:
  schema::SchemaSet m_set;
  nlohmann::json m_schema;
  std::string m_api_version;
  std::string m_kind;
};

/// A CRD whose schema does not compile admits nothing: the real API server would not have accepted
/// the CRD, so no object of it may pass unchecked.
class RejectingValidator final : public ObjectValidator {
 public:
  explicit RejectingValidator(std::string reason) : m_reason(std::move(reason)) {}
  [[nodiscard]] ValidationOutcome validate(const nlohmann::json&) const override {
    ValidationOutcome out;
    out.errors.push_back({"FieldValueInvalid", "the CRD's openAPIV3Schema cannot be used: " + m_reason, ""});
    return out;
  }

 private:
  std::string m_reason;
};

}  // namespace

std::shared_ptr<const ObjectValidator> make_default_validator(const nlohmann::json& open_api_v3_schema,
                                                              const std::string& group,
                                                              const std::string& version,
                                                              const std::string& kind) {
  auto set = schema::SchemaSet::from_openapi(yaml::from_json(open_api_v3_schema), group, version, kind);
  if (!set) return std::make_shared<RejectingValidator>(set.error().message);
  return std::make_shared<StructuralValidator>(std::move(*set), open_api_v3_schema, group + "/" + version,
                                               kind);
}

}  // namespace kpt::apiserver
