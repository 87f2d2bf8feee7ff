#pragma once

#include "util/diagnostic.hpp"
#include "yaml/input_files.hpp"
#include "yaml/node.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace kpt::yaml {

/// Bounds that keep hostile input from costing unbounded time or memory.
struct ReadLimits {
  std::size_t max_bytes = 8u * 1024 * 1024;  ///< per input (flag --max-bytes)
  std::size_t max_depth = 100;               ///< nesting of mappings/sequences (past it the file stops)
  std::size_t max_nodes = 1'000'000;         ///< per document, keys included, counted after alias expansion
  std::size_t max_documents = 10'000;        ///< per input
};

struct ReadResult {
  std::vector<Document> documents;  ///< every well-formed, non-empty document
  Diagnostics findings;  ///< syntax errors, duplicate keys, limits hit, bad UTF-8 ... with positions
  std::size_t empty_documents = 0;  ///< documents with no content (or `null`), skipped as kubectl skips them
};

/// Parses YAML (one or more documents) or JSON text named `name`. Never throws;
/// problems in the text are findings (severity error), each with file, line and column:
///   input.too-large, input.binary (NUL byte), input.invalid-utf8: the file is not parsed;
///   yaml.syntax, yaml.tab-indent: libyaml's problem position; earlier documents are kept;
///   yaml.too-deep: the document and the rest of the file are dropped;
///   yaml.too-many-nodes, yaml.unknown-anchor, yaml.recursive-alias: the document is dropped;
///   yaml.duplicate-key (first value kept), yaml.bad-tag, yaml.bad-merge, yaml.complex-key:
///   the document is kept; input.too-many-documents: later documents are dropped.
/// Scalars resolve as go-yaml v2 does (see yaml_scalar.hpp); aliases and `<<` merges are
/// expanded; columns count characters, as libyaml's do.
ReadResult read_manifests(const std::string& name, std::shared_ptr<const std::string> text,
                          const ReadLimits& limits = {});

/// read_manifests without the fast path of simple_yaml.hpp: all text goes through libyaml.
/// Tests compare the two; the results must be equal.
ReadResult read_manifests_with_libyaml(const std::string& name, std::shared_ptr<const std::string> text,
                                       const ReadLimits& limits = {});

/// Same for a collected input; an input cut at --max-bytes (InputFile::too_large) gives
/// one input.too-large finding and no documents.
ReadResult read_manifests(const InputFile& input, const ReadLimits& limits = {});

}  // namespace kpt::yaml
