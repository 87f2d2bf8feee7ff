#pragma once

#include "model/pytorchjob/release.hpp"
#include "util/diagnostic.hpp"
#include "yaml/node.hpp"

#include <span>
#include <string_view>

namespace kpt::schema {

/// A PyTorchJob field (or pod template field) and the operator release whose CRD first has it.
/// `path` is a pattern: `*` matches any mapping key, a `[]` suffix any sequence item, and the
/// segment `#containers` stands for `containers[]`, `initContainers[]` and `ephemeralContainers[]`.
struct ReleaseField {
  std::string_view path;
  model::pytorchjob::Release added_in;
};

/// Every field in the table, in table order (spec fields first, then the pod template).
std::span<const ReleaseField> release_fields();

/// Findings `release.unknown-field` (error) for every field of a PyTorchJob document that the
/// CRD of `release` does not have, e.g. "field 'spec.nprocPerNode' is not known to operator
/// v1.6.0 (added in v1.7.0)". Only the outermost unknown field of a subtree is reported.
/// Documents of another kind yield nothing.
Diagnostics check_release_fields(const yaml::Document& doc, model::pytorchjob::Release release);

}  // namespace kpt::schema
