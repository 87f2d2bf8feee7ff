#pragma once

#include "util/diagnostic.hpp"
#include "yaml/manifest_reader.hpp"
#include "yaml/node.hpp"
#include "yaml/yaml_scalar.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kpt::yaml {

/// Builds one document's Node tree from parser events, without recursion, inside the
/// limits: aliases are expanded (as go-yaml does) only after their node count and height
/// are checked, so an alias bomb costs nothing; duplicate keys keep the first value.
/// Findings go to `out`. After a limit is hit the document is dropped and later events
/// up to end_document() are ignored.
class TreeBuilder {
 public:
  TreeBuilder(const ReadLimits& limits, std::string file, Diagnostics& out);

  /// Starts a document. With `alias_bomb` (the document is known to exceed max_nodes once
  /// expanded, see documents_over_node_limit) aliases are counted but not copied, so the
  /// refusal costs no more than reading the text.
  void begin_document(bool alias_bomb = false);
  void scalar(std::string&& text, Position pos, const ScalarStyle& style, std::string_view anchor);
  void begin_container(NodeKind kind, Position pos, std::string_view anchor);
  void end_container();
  void alias(std::string_view anchor, Position pos);
  /// The document's root, or nothing when the document was dropped.
  std::optional<Node> end_document();

  /// Nodes of the current document so far, aliases counted expanded.
  [[nodiscard]] std::size_t node_count() const { return m_count; }
  /// A document nested past max_depth: the caller stops reading the file, because
  /// libyaml's cost grows with the square of flow nesting.
  [[nodiscard]] bool stop_file() const { return m_stop_file; }
  /// Mapping path of the innermost open node, e.g. "spec.containers[0].env".
  [[nodiscard]] std::string current_path() const;

 private:
  // Children of open containers wait on shared scratch stacks (m_items, m_keys, m_key_pos)
  // and move into their parent once, into vectors of the exact size, when it ends.
  struct Frame {
    Node node;  ///< kind and position; children are moved in at the end
    std::size_t items_start = 0;
    std::size_t keys_start = 0;
    std::size_t count = 1;     ///< nodes in this subtree, itself included
    std::uint32_t height = 1;  ///< container levels in this subtree
    std::string anchor;
    bool have_key = false;  ///< mappings: a key was read, its value comes next
    bool key_is_merge = false;
    bool key_invalid = false;
    std::string key;
    Position key_pos;
    std::vector<Node> merges;  ///< mappings given by `<<`, applied at the end
    std::unique_ptr<std::unordered_map<std::string, std::uint32_t>> index;  ///< for large mappings
  };
  struct Anchored {
    Node node;
    std::size_t count = 0;
    std::uint32_t height = 0;
  };

  bool admit(std::size_t nodes, std::uint32_t height, Position pos, std::string_view what);
  void attach(Node&& child, std::size_t count, std::uint32_t height);
  void attach_to_mapping(Frame& top, Node&& child);
  [[nodiscard]] std::ptrdiff_t find_key(const Frame& top, const std::string& key) const;
  void add_entry(Frame& top, std::string&& key, Position key_pos, Node&& value);
  void apply_merges(Frame& top);
  void fail(Position pos, std::string rule_id, std::string message, std::string hint = {});
  void report(Position pos, std::string rule_id, std::string message, std::string path,
              std::string hint = {});

  const ReadLimits& m_limits;
  std::string m_file;
  Diagnostics& m_out;
  std::vector<Frame> m_stack;
  std::vector<Node> m_items;
  std::vector<std::string> m_keys;
  std::vector<Position> m_key_pos;
  std::unordered_map<std::string, Anchored> m_anchors;
  std::optional<Node> m_root;
  std::size_t m_count = 0;
  bool m_aborted = false;
  bool m_alias_bomb = false;
  bool m_stop_file = false;
};

}  // namespace kpt::yaml
