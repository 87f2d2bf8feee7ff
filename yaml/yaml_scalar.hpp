#pragma once

#include "yaml/node.hpp"

#include <string>
#include <string_view>

namespace kpt::yaml {

/// How a scalar was written: the parts of libyaml's scalar event that decide its type.
struct ScalarStyle {
  bool quoted = false;   ///< single- or double-quoted, or a literal/folded block
  std::string_view tag;  ///< explicit tag as libyaml reports it ("tag:yaml.org,2002:int"), empty if none
};

/// Outcome of resolving a scalar whose explicit tag does not fit its text (`!!int abc`).
enum class ScalarProblem { none, tag_mismatch };

/// Sets `node.kind` and the typed value from `node.text` the way go-yaml v2 (and so
/// sigs.k8s.io/yaml and Kubernetes) resolves scalars: YAML 1.1 booleans (yes/no/on/off/y/n),
/// nulls, ints with `_` separators, 0x/0o/0b and leading-0 octal, floats and .inf/.nan.
/// Quoted scalars are strings unless tagged; unknown tags leave a string.
ScalarProblem resolve_scalar(Node& node, const ScalarStyle& style);

/// Short spelling of a standard tag ("tag:yaml.org,2002:int" -> "!!int"); other tags unchanged.
std::string short_tag(std::string_view tag);

}  // namespace kpt::yaml
