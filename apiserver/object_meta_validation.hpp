#pragma once

#include "apiserver/status.hpp"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace kpt::apiserver {

/// Which names a kind takes (the nameFn its validation passes to ValidateObjectMeta).
enum class NameRule {
  dns1123_subdomain,  ///< most kinds
  dns1123_label,      ///< Namespace
  dns1035_label,      ///< Service (its name is a DNS label that must start with a letter)
};

/// The name rule of a built-in kind (k8s.io/kubernetes pkg/apis/*/validation).
NameRule name_rule_of(const std::string& group, const std::string& kind);

/// ValidateObjectMeta (k8s.io/apimachinery pkg/api/validation/objectmeta.go) on the object's
/// `metadata` as it will be stored: generateName and name by `rule`, the namespace, label and
/// annotation keys and values, owner references and finalizers. Causes as the real server words
/// them ("Invalid value: \"Foo\": a lowercase RFC 1123 label must consist of ...").
std::vector<StatusCause> validate_object_meta(const nlohmann::json& object, NameRule rule, bool namespaced);

/// What the kind's own validation adds that a schema cannot say: ConfigMap and Secret keys and
/// sizes, a CronJob's name length.
std::vector<StatusCause> validate_kind_rules(const std::string& group, const std::string& kind,
                                             const nlohmann::json& object);

/// A field.Invalid cause: "Invalid value: \"value\": detail".
StatusCause invalid_value(const std::string& field, const std::string& value, const std::string& detail);

}  // namespace kpt::apiserver
