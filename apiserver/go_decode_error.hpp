#pragma once

#include "util/strings.hpp"

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace kpt::apiserver {

/// The Go types of the built-in kinds (schema/builtin/k8s_go_types.json), for saying what the real
/// API server's JSON decoder says about a value of the wrong type. kube-apiserver decodes a
/// request into the kind's Go struct with sigs.k8s.io/json, whose errors name the innermost struct,
/// the JSON field path without indices or map keys, and the Go type:
///   json: cannot unmarshal number into Go struct field ContainerPort.spec.containers.ports.containerPort
///   of type int32
/// Quantities have their own parser and message.
class GoTypes {
 public:
  /// Parses a k8s_go_types.json document; throws on one that is not (a build error).
  explicit GoTypes(std::string_view json_text);
  /// The embedded table, parsed once.
  static const GoTypes& builtin();

  [[nodiscard]] bool knows(const std::string& api_version, const std::string& kind) const;
  /// The decode error for the value at `field_path` ("spec.containers[0].ports[0].containerPort",
  /// as the structural validator writes paths) of `object`, a `kind` of `api_version`. Empty when
  /// the path does not lead through the table to a value of `object` (the caller falls back).
  [[nodiscard]] std::string type_error(const std::string& api_version, const std::string& kind,
                                       const nlohmann::json& object, const std::string& field_path) const;

 private:
  struct Field {
    std::string display;  ///< the Go type as a decode error prints it
    std::string shape;    ///< "[]" SHAPE | "map[]" SHAPE | "@" definition | scalar | "$quantity" ...
  };
  struct Struct {
    std::string name;
    std::map<std::string, Field, std::less<>> fields;
  };

  std::map<std::string, Struct, std::less<>> m_structs;     ///< by definition name
  std::map<std::string, std::string, std::less<>> m_kinds;  ///< "apps/v1/Deployment" -> definition
};

using util::go_quote;

/// The quantity parser's error (k8s.io/apimachinery pkg/api/resource ErrFormatWrong).
inline constexpr std::string_view k_quantity_format_error =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

}  // namespace kpt::apiserver
