#pragma once

#include <nlohmann/json_fwd.hpp>

namespace kpt::schema {

/// `crd` with the field descriptions of `table` in the openAPIV3Schema of each version the table
/// knows (by "<CRD name>/<version>"), wherever our schema has the field the description documents;
/// a description the schema already has stays. `table` is extract_descriptions.py's format: texts,
/// nodes of [text index or -1, {property, "*" or "[]": node index}], roots by CRD name and version.
/// A malformed table adds nothing where it is malformed (never throws); a node may only point at
/// nodes before it, so a cycle adds nothing either.
nlohmann::json with_descriptions(nlohmann::json crd, const nlohmann::json& table);

/// with_descriptions() with the carried table: the Go doc comments of Kubeflow's API types as the
/// CRDs of Training Operator v1.9.4 (PyTorchJob) and Trainer v2.3.0 carry them. For the manifests
/// only: the compiled validation schemas and the local cluster's own CRDs stay without them.
nlohmann::json with_descriptions(nlohmann::json crd);

}  // namespace kpt::schema
