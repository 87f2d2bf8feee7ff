#pragma once

#include "apiserver/status.hpp"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace kpt::apiserver {

/// What validating one object found.
struct ValidationOutcome {
  std::vector<StatusCause> errors;  ///< always reject (422 Invalid)
  std::vector<StatusCause>
      unknown_fields;  ///< custom resources: 422 with fieldValidation=Strict, else warnings
  /// Built-in kinds: why the real server's JSON decoder refuses the object, in its words
  /// ("json: cannot unmarshal number into Go struct field ConfigMap.data of type string"); empty: it decodes.
  std::string decode_error;
  /// Built-in kinds: the fields their Go types do not have, as strict decoding names them
  /// (`unknown field "spec.foo"`): refused with fieldValidation=Strict, warnings with Warn, and
  /// dropped from the object either way, as decoding into a Go struct drops them.
  std::vector<std::string> strict_errors;
  std::vector<nlohmann::json::json_pointer> unknown_pointers;  ///< where those fields are
};

/// Validates the objects of one kind: custom resources against the CRD version's openAPIV3Schema,
/// built-in kinds as the real server decodes and validates them.
class ObjectValidator {
 public:
  virtual ~ObjectValidator() = default;
  /// Checks the object as written (custom resources: after defaulting; built-in kinds: as decoded,
  /// before the server's own defaults).
  [[nodiscard]] virtual ValidationOutcome validate(const nlohmann::json& object) const = 0;
  /// Fills in the schema's defaults, before validation, as the server does on every write.
  virtual void default_object(nlohmann::json& object) const { (void)object; }
  /// Built-in kinds: what the kind's validation checks on the object as it will be stored
  /// (ValidateObjectMeta's names and labels, the kind's own rules).
  [[nodiscard]] virtual std::vector<StatusCause> validate_stored(const nlohmann::json& object) const {
    (void)object;
    return {};
  }
  /// Built-in kinds: what the kind's update validation refuses in the change from `old_object`
  /// (a Pod's fixed spec, an immutable ConfigMap's data, a Job's template).
  [[nodiscard]] virtual std::vector<StatusCause> validate_update(const nlohmann::json& old_object,
                                                                 const nlohmann::json& object) const {
    (void)old_object;
    (void)object;
    return {};
  }
};

/// Builds a validator from an openAPIV3Schema; the server calls it once per CRD version.
/// It is the project's structural validator (schema/); a schema that does not compile gives a
/// validator that rejects every object with the compile error.
std::shared_ptr<const ObjectValidator> make_default_validator(const nlohmann::json& open_api_v3_schema,
                                                              const std::string& group,
                                                              const std::string& version,
                                                              const std::string& kind);

/// The validator of a built-in kind, on its schema generated from the Kubernetes definitions
/// (schema/builtin/), or nullptr for a kind that has none (CustomResourceDefinition).
std::shared_ptr<const ObjectValidator> make_builtin_validator(const std::string& group,
                                                              const std::string& version,
                                                              const std::string& kind, bool namespaced);

}  // namespace kpt::apiserver
