#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "schema/diagnostic.hpp"
#include "schema/input_files.hpp"
#include "schema/node.hpp"

namespace kpt::schema {

/// Bounds that keep hostile input from costing unbounded time or memory.
struct ReadLimits {
  std::size_t max_bytes = 8u * 1024 * 1024;  ///< per input (flag --max-bytes)
  std::size_t max_depth = 100;               ///< nesting of mappings/sequences
  std::size_t max_nodes = 1'000'000;         ///< per document, counted after alias expansion
  std::size_t max_documents = 10'000;        ///< per input
};

struct ReadResult {
  std::vector<Document> documents;  ///< every well-formed, non-empty document
  Diagnostics findings;             ///< syntax errors, duplicate keys, limits hit, bad UTF-8 ... with positions
  std::size_t empty_documents = 0;  ///< documents with no content (or `null`), skipped as kubectl skips them
};

/// Parses YAML (one or more documents) or JSON text named `name`. Never throws;
/// problems in the text are findings, each with file, line and column.
ReadResult read_manifests(const std::string& name, std::shared_ptr<const std::string> text,
                          const ReadLimits& limits = {});

/// Same for a collected input; an input cut at --max-bytes (InputFile::too_large) gives
/// one input.too-large finding and no documents.
ReadResult read_manifests(const InputFile& input, const ReadLimits& limits = {});

}  // namespace kpt::schema
