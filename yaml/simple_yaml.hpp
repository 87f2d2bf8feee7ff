#pragma once

#include "yaml/manifest_reader.hpp"

#include <memory>
#include <optional>
#include <string>

namespace kpt::yaml {

/// A fast path for the YAML most manifests are written in: ASCII text, block mappings and
/// sequences (indentless ones too), one-line plain, single- and double-quoted scalars without
/// escapes, and one-line flow sequences and mappings of such scalars, documents split by
/// `---`. It feeds the same TreeBuilder with the events libyaml would give, at the same
/// positions, so the result equals libyaml's. It answers nothing (nullopt) as soon as the text
/// leaves that subset, or when anything would be reported (a syntax error, a duplicate key, a
/// limit, an empty document): the caller then parses the text with libyaml, which says why.
std::optional<ReadResult> read_simple_yaml(const std::string& name,
                                           const std::shared_ptr<const std::string>& text,
                                           const ReadLimits& limits);

}  // namespace kpt::yaml
