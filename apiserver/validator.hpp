#pragma once

#include "apiserver/status.hpp"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace kpt::apiserver {

/// What validating one custom resource found: schema errors and unknown fields.
struct ValidationOutcome {
  std::vector<StatusCause> errors;          ///< always reject (422 Invalid)
  std::vector<StatusCause> unknown_fields;  ///< 422 with fieldValidation=Strict, Warning headers with Warn
};

/// Validates custom resources of one kind against the CRD version's openAPIV3Schema.
class ObjectValidator {
 public:
  virtual ~ObjectValidator() = default;
  [[nodiscard]] virtual ValidationOutcome validate(const nlohmann::json& object) const = 0;
  /// Fills in the schema's defaults, before validation, as the server does on every write.
  virtual void default_object(nlohmann::json& object) const { (void)object; }
};

/// Builds a validator from an openAPIV3Schema; the server calls it once per CRD version.
/// It is the project's structural validator (schema/); a schema that does not compile gives a
/// validator that rejects every object with the compile error.
std::shared_ptr<const ObjectValidator> make_default_validator(const nlohmann::json& open_api_v3_schema,
                                                              const std::string& group,
                                                              const std::string& version,
                                                              const std::string& kind);

}  // namespace kpt::apiserver
