// Built when the project's structural validator (schema/structural_schema.hpp) is part of kpt_schema.
#include <nlohmann/json.hpp>

#include "apiserver/validator.hpp"
#include "schema/node_json.hpp"
#include "schema/structural_schema.hpp"

namespace kpt::apiserver {

namespace {

class StructuralValidator final : public ObjectValidator {
 public:
  explicit StructuralValidator(schema::SchemaSet set, std::string api_version, std::string kind)
      : m_set(std::move(set)), m_api_version(std::move(api_version)), m_kind(std::move(kind)) {}

  [[nodiscard]] ValidationOutcome validate(const nlohmann::json& object) const override {
    ValidationOutcome out;
    const auto* compiled = m_set.find(m_api_version, m_kind);
    if (compiled == nullptr) return out;
    schema::Document doc;
    doc.file = "<request>";
    doc.root = schema::from_json(object);
    schema::StructuralOptions opts;
    opts.unknown_fields_are_errors = false;
    for (const auto& d : schema::validate_structure(doc, *compiled, opts)) {
      StatusCause cause{"FieldValueInvalid", d.message, d.field_path};
      if (d.rule_id.find("unknown") != std::string::npos) {
        out.unknown_fields.push_back(cause);
      } else if (d.severity == schema::Severity::error) {
        out.errors.push_back(cause);
      }
    }
    return out;
  }

 private:
  schema::SchemaSet m_set;
  std::string m_api_version;
  std::string m_kind;
};

}  // namespace

std::shared_ptr<const ObjectValidator> make_default_validator(const nlohmann::json& open_api_v3_schema,
                                                              const std::string& group, const std::string& version,
                                                              const std::string& kind) {
  auto set = schema::SchemaSet::from_openapi(schema::from_json(open_api_v3_schema), group, version, kind);
  if (!set) return make_basic_validator(open_api_v3_schema);
  return std::make_shared<StructuralValidator>(std::move(*set), group + "/" + version, kind);
}

}  // namespace kpt::apiserver
