#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kpt {

enum class Severity : std::uint8_t { error, warning, info };

const char* to_string(Severity severity);

struct Location {
  std::string file;
  std::uint32_t line = 0;
  std::uint32_t col = 0;
};

/// A finding: data, never printed by the code that finds it.
struct Diagnostic {
  Severity severity = Severity::error;
  Location location;
  std::string field_path;  ///< e.g. "spec.pytorchReplicaSpecs.Worker.replicas"
  std::string rule_id;     ///< stable id, e.g. "schema.unknown-field"
  std::string message;     ///< lower-case, no final period, user values in single quotes
  std::string hint;        ///< optional fix, e.g. "did you mean 'replicas'?"
};

using Diagnostics = std::vector<Diagnostic>;

}  // namespace kpt
