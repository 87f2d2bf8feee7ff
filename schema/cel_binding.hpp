#pragma once

#include "schema/cel/value.hpp"
#include "schema/structural_schema_impl.hpp"
#include "yaml/node.hpp"

#include <string>
#include <vector>

namespace kpt::schema {

/// `value` as the API server binds `self` for an x-kubernetes-validations rule, typed by its
/// schema (k8s.io/apiserver/pkg/cel/common/values.go, UnstructuredToVal):
///   - integer: int, also for integral numbers (YAML 2.0 reaches the server as JSON 2); number:
///     double; int-or-string: int or string; boolean; null;
///   - strings with format date-time or date are timestamps, duration durations, byte bytes: bound
///     as opaque values, so a rule that operates on them is "not checked" rather than guessed;
///   - objects with properties: only the declared properties (fields kept by
///     x-kubernetes-preserve-unknown-fields are invisible to CEL), scalar defaults filled in (the
///     server defaults before it validates), nulls of non-nullable fields dropped (it prunes them);
///     additionalProperties: a map; arrays: lists; data under x-kubernetes-preserve-unknown-fields
///     with no type: opaque;
///   - at a resource root (the document, an embedded resource): apiVersion, kind, and metadata
///     with only name and generateName.
/// With `only`, an object keeps just those fields (cel::Program::self_fields), so a rule that
/// reads self.metadata.name does not pay for converting the whole document.
cel::Value to_cel_value(const yaml::Node& value, const StructuralSchema& schema, bool resource_root,
                        const std::vector<std::string>* only = nullptr);

}  // namespace kpt::schema
