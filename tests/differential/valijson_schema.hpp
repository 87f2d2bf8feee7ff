#pragma once

// The CRD schema subset as the JSON Schema draft 4 that means the same to valijson, for the rules
// that can be said in draft 4; README.md lists each Kubernetes rule and how it is treated here.
#include <nlohmann/json.hpp>

namespace kpt::differential {

/// A draft-4 schema for an OpenAPI v3 structural schema (CRD openAPIV3Schema):
///   nullable: true                     -> anyOf [{type: null}, the rest]
///   x-kubernetes-int-or-string         -> anyOf [{type: integer}, {type: string}] (+ the rest)
///   x-kubernetes-list-type: set        -> uniqueItems: true
///   properties, no additionalProperties, no x-kubernetes-preserve-unknown-fields
///                                      -> additionalProperties: false (unknown fields are errors)
///   format: int32                      -> minimum/maximum of int32
///   type: integer                      -> also integral numbers (1.0): Kubernetes decodes JSON
///                                         numbers as float64 and accepts integral ones
/// x-kubernetes-list-type: map keys, x-kubernetes-embedded-resource and x-kubernetes-validations
/// have no draft-4 spelling and are dropped; the comparison classifies what they decide.
nlohmann::json to_draft4(const nlohmann::json& openapi);

}  // namespace kpt::differential
