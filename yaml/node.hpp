#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kpt::yaml {

/// 1-based line and column of a node's first character in its source. 0 means unknown.
struct Position {
  std::uint32_t line = 0;
  std::uint32_t col = 0;
};

enum class NodeKind : std::uint8_t { null, boolean, integer, number, string, sequence, mapping };

const char* to_string(NodeKind kind);

/// A parsed YAML/JSON value that remembers where each part came from.
/// Scalars are resolved as Kubernetes resolves them (sigs.k8s.io/yaml, YAML 1.1 for
/// booleans: `yes`/`no`/`on`/`off` are booleans); `text` keeps the source spelling.
struct Node {
  NodeKind kind = NodeKind::null;
  Position pos;
  bool quoted = false;        ///< scalar was single- or double-quoted (always a string)
  bool int_overflow = false;  ///< integer literal outside int64
  bool boolean = false;
  /// A `<<` key go-yaml v2 merges: plain and untagged, or tagged !!merge; `"<<"` and `!!str <<`
  /// are ordinary keys (go-yaml's isMerge).
  bool merge_key = false;
  std::int64_t integer = 0;
  double number = 0;
  std::string text;                     ///< scalar source text (strings: the value)
  std::vector<Node> items;              ///< sequence items, or mapping values (parallel to keys)
  std::vector<std::string> keys;        ///< mapping keys, in source order
  std::vector<Position> key_positions;  ///< where each key starts

  [[nodiscard]] bool is_scalar() const { return kind != NodeKind::sequence && kind != NodeKind::mapping; }
  [[nodiscard]] bool is_map() const { return kind == NodeKind::mapping; }
  [[nodiscard]] bool is_seq() const { return kind == NodeKind::sequence; }
  [[nodiscard]] bool is_string() const { return kind == NodeKind::string; }

  /// Mapping lookup by key; nullptr when absent or when this is not a mapping.
  [[nodiscard]] const Node* find(std::string_view key) const;
  /// Index of `key` in `keys`, or -1.
  [[nodiscard]] std::ptrdiff_t key_index(std::string_view key) const;
  /// Follows a path of mapping keys; nullptr at the first miss.
  [[nodiscard]] const Node* at_path(std::initializer_list<std::string_view> path) const;
};

/// One YAML/JSON document of a file.
struct Document {
  std::string file;       ///< display name: path as given, or "<stdin>"
  std::size_t index = 0;  ///< 0-based document number within the file
  Position start;         ///< where the document begins
  Node root;
  std::shared_ptr<const std::string> source;  ///< the whole file text, shared by its documents, for carets
};

/// Text of line `line` (1-based) of `text`, without the newline; empty when out of range.
std::string_view line_of(std::string_view text, std::uint32_t line);

}  // namespace kpt::yaml
