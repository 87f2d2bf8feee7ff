#pragma once

#include "apiserver/resources.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace kpt::apiserver {

/// How deep a converted schema goes; below it a node is untyped (accepts anything), which bounds
/// the work and the nesting of the protobuf encoding for any CRD a client stored.
inline constexpr int k_openapi_v2_max_depth = 64;

/// A CRD's openAPIV3Schema as the OpenAPI v2 schema kubectl parses (k8s.io/kube-openapi
/// pkg/util/proto): what v2 cannot express is dropped the way the real API server publishes CRDs
/// (allOf, oneOf, anyOf and not; a nullable, int-or-string, embedded or unknown-fields-preserving
/// node untyped, its properties and items too), and every node is one kubectl accepts (an array
/// with exactly one items schema, a single known type), since one it refuses fails the document.
nlohmann::json openapi_v2_schema(const nlohmann::json& v3, int depth = 0);

/// GET /openapi/v2 as JSON (swagger 2.0): a definition per kind a CRD serves, named as in
/// /openapi/v3, with apiVersion, kind and metadata as the real server publishes them and tagged
/// x-kubernetes-group-version-kind. The built-in kinds are left out: their schemas here are
/// minimal, and a kind kubectl finds no definition for is not validated on the client.
nlohmann::json openapi_v2_document(const ResourceRegistry& registry);

/// The document in gnostic's protobuf encoding (apiserver/proto/openapi_v2.proto), which client-go
/// asks for (application/com.github.proto-openapi.spec.v2@v1.0+protobuf) and kubectl decodes.
std::string openapi_v2_protobuf(const nlohmann::json& document);

}  // namespace kpt::apiserver
