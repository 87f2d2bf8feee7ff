#pragma once

// What sigs.k8s.io/yaml (go-yaml v2.4 underneath) makes of a YAML stream, computed from
// yaml-cpp's parse: the oracle the reader is compared with. The scalar rules are written here from
// go-yaml v2.4.0 resolve.go and sigs.k8s.io/yaml v1.4.0 yaml.go, independently of yaml/yaml_scalar.cpp.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kpt::differential {

/// A parse by yaml-cpp resolved with go-yaml v2 rules: one JSON value per non-empty document, or
/// the reason yaml-cpp or the resolution refused the text.
struct OracleResult {
  std::vector<nlohmann::json> documents;
  std::optional<std::string> error;
};

/// Parses `text` with yaml-cpp (YAML::LoadAll) and resolves every scalar as go-yaml v2 does:
/// plain scalars by its table and number rules, quoted ones as strings, explicit !!str/!!int/
/// !!float/!!bool/!!null/!!binary tags as it decodes them; `<<` merges applied in document order
/// as go-yaml v2 applies them (yaml-cpp leaves `<<` a key); keys turned into JSON keys as
/// sigs.k8s.io/yaml does (ints and bools spelled out, floats in Go's %g at 32 bits, null keys an
/// error). A repeated key takes its last value, as in go-yaml's non-strict Unmarshal. Documents
/// that are empty or null are skipped, as kubectl does.
OracleResult oracle_parse(const std::string& text);

/// The value go-yaml v2 gives a plain (unquoted, untagged) scalar, as JSON; integers above
/// int64 up to uint64 stay unsigned integers.
nlohmann::json resolve_plain(const std::string& text);

}  // namespace kpt::differential
