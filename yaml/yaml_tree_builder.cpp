#include "yaml/yaml_tree_builder.hpp"

#include "util/strings.hpp"

#include <algorithm>
#include <utility>

namespace kpt::yaml {
namespace {

constexpr std::size_t k_index_threshold = 16;  // linear key search below, hashing above

bool is_merge_key(const Node& key) { return key.kind == NodeKind::string && key.merge_key; }

// sigs.k8s.io/yaml turns non-string keys into JSON object keys like this.
std::string key_text(Node&& key) {
  switch (key.kind) {
    case NodeKind::boolean:
      return key.boolean ? "true" : "false";
    case NodeKind::integer:
      return key.int_overflow ? std::move(key.text) : std::to_string(key.integer);
    default:
      return std::move(key.text);
  }
}

}  // namespace

TreeBuilder::TreeBuilder(const ReadLimits& limits, std::string file, Diagnostics& out)
    : m_limits(limits), m_file(std::move(file)), m_out(out) {
  m_stack.reserve(32);
  m_items.reserve(256);
  m_keys.reserve(256);
  m_key_pos.reserve(256);
}

void TreeBuilder::begin_document(bool alias_bomb) {
  m_alias_bomb = alias_bomb;
  m_stack.clear();
  m_items.clear();
  m_keys.clear();
  m_key_pos.clear();
  m_anchors.clear();
  m_root.reset();
  m_count = 0;
  m_aborted = false;
}

std::optional<Node> TreeBuilder::end_document() {
  std::optional<Node> out;
  if (!m_aborted && m_stack.empty()) out = std::move(m_root);
  begin_document();
  return out;
}

std::string TreeBuilder::current_path() const {
  std::string path;
  for (std::size_t i = 0; i < m_stack.size(); ++i) {
    const auto& f = m_stack[i];
    if (f.node.kind == NodeKind::sequence) {
      const auto end = i + 1 < m_stack.size() ? m_stack[i + 1].items_start : m_items.size();
      path += '[';
      path += std::to_string(end - f.items_start);
      path += ']';
    } else if (f.have_key && !f.key_invalid) {
      if (!path.empty()) path += '.';
      path += f.key;
    } else {
      break;  // inside a key, not a value
    }
  }
  return path;
}

void TreeBuilder::report(Position pos, std::string rule_id, std::string message, std::string path,
                         std::string hint) {
  Diagnostic d;
  d.severity = Severity::error;
  d.location = Location{m_file, pos.line, pos.col};
  d.field_path = std::move(path);
  d.rule_id = std::move(rule_id);
  d.message = std::move(message);
  d.hint = std::move(hint);
  m_out.push_back(std::move(d));
}

void TreeBuilder::fail(Position pos, std::string rule_id, std::string message, std::string hint) {
  report(pos, std::move(rule_id), std::move(message), current_path(), std::move(hint));
  m_aborted = true;
  m_stack.clear();  // depth never exceeded the limit, so destroying the tree cannot blow the stack
  m_items.clear();
  m_keys.clear();
  m_key_pos.clear();
  m_anchors.clear();
  m_root.reset();
}

bool TreeBuilder::admit(std::size_t nodes, std::uint32_t height, Position pos, std::string_view what) {
  if (nodes > m_limits.max_nodes - std::min(m_count, m_limits.max_nodes)) {
    const auto limit = std::to_string(m_limits.max_nodes);
    if (what.empty()) {
      fail(pos, "yaml.too-many-nodes", "document has more than " + limit + " nodes",
           "split the document or raise the node limit");
    } else {
      fail(pos, "yaml.too-many-nodes", std::string(what) + " expands the document past " + limit + " nodes",
           "every alias is expanded as Kubernetes expands it; nested aliases multiply, so write the values "
           "out");
    }
    return false;
  }
  if (m_stack.size() + height > m_limits.max_depth) {
    const auto limit = std::to_string(m_limits.max_depth);
    m_stop_file = true;
    fail(pos, "yaml.too-deep",
         what.empty() ? "nesting deeper than " + limit + " levels"
                      : std::string(what) + " nests deeper than " + limit + " levels");
    return false;
  }
  return true;
}

void TreeBuilder::scalar(std::string&& text, Position pos, const ScalarStyle& style,
                         std::string_view anchor) {
  if (m_aborted || !admit(1, 0, pos, {})) return;
  ++m_count;
  Node n;
  n.pos = pos;
  n.text = std::move(text);
  n.merge_key =
      n.text == "<<" && !style.quoted && (style.tag.empty() || style.tag == "tag:yaml.org,2002:merge");
  if (resolve_scalar(n, style) == ScalarProblem::tag_mismatch) {
    report(pos, "yaml.bad-tag", "cannot decode " + util::quote(n.text) + " as " + short_tag(style.tag),
           current_path(), "remove the tag or change the value");
  }
  if (!anchor.empty()) m_anchors[std::string(anchor)] = Anchored{n, 1, 0};
  attach(std::move(n), 1, 0);
}

void TreeBuilder::begin_container(NodeKind kind, Position pos, std::string_view anchor) {
  if (m_aborted || !admit(1, 1, pos, {})) return;
  ++m_count;
  auto& f = m_stack.emplace_back();
  f.node.kind = kind;
  f.node.pos = pos;
  f.items_start = m_items.size();
  f.keys_start = m_keys.size();
  if (!anchor.empty()) f.anchor = anchor;
}

void TreeBuilder::end_container() {
  if (m_aborted || m_stack.empty()) return;
  auto& top = m_stack.back();
  if (top.node.kind == NodeKind::mapping && !top.merges.empty()) apply_merges(top);
  auto& node = top.node;
  const auto first_item = m_items.begin() + static_cast<std::ptrdiff_t>(top.items_start);
  node.items.reserve(m_items.size() - top.items_start);
  node.items.insert(node.items.end(), std::make_move_iterator(first_item),
                    std::make_move_iterator(m_items.end()));
  m_items.erase(first_item, m_items.end());
  if (node.kind == NodeKind::mapping) {
    const auto first_key = m_keys.begin() + static_cast<std::ptrdiff_t>(top.keys_start);
    node.keys.reserve(m_keys.size() - top.keys_start);
    node.keys.insert(node.keys.end(), std::make_move_iterator(first_key),
                     std::make_move_iterator(m_keys.end()));
    m_keys.erase(first_key, m_keys.end());
    const auto first_pos = m_key_pos.begin() + static_cast<std::ptrdiff_t>(top.keys_start);
    node.key_positions.assign(first_pos, m_key_pos.end());
    m_key_pos.erase(first_pos, m_key_pos.end());
  }
  Node done = std::move(node);
  const auto count = top.count;
  const auto height = top.height;
  if (!top.anchor.empty()) m_anchors[top.anchor] = Anchored{done, count, height};
  m_stack.pop_back();
  attach(std::move(done), count, height);
}

void TreeBuilder::alias(std::string_view anchor, Position pos) {
  if (m_aborted) return;
  const auto it = m_anchors.find(std::string(anchor));
  if (it == m_anchors.end()) {
    const bool open =
        std::any_of(m_stack.begin(), m_stack.end(), [&](const Frame& f) { return f.anchor == anchor; });
    if (open) {
      fail(pos, "yaml.recursive-alias", "anchor " + util::quote(anchor) + " value contains itself");
    } else {
      fail(pos, "yaml.unknown-anchor", "unknown anchor " + util::quote(anchor) + " referenced",
           "define the anchor with '&" + std::string(anchor.substr(0, 80)) + "' before using it");
    }
    return;
  }
  const auto& a = it->second;
  if (!admit(a.count, a.height, pos, "alias " + util::quote("*" + std::string(anchor)))) return;
  m_count += a.count;
  if (m_alias_bomb) {
    Node placeholder;  // the document will be refused before it is complete
    placeholder.pos = pos;
    attach(std::move(placeholder), a.count, a.height);
    return;
  }
  Node copy = a.node;
  copy.pos = pos;  // findings on the value point at the alias; its parts at the anchor's text
  attach(std::move(copy), a.count, a.height);
}

void TreeBuilder::attach(Node&& child, std::size_t count, std::uint32_t height) {
  if (m_stack.empty()) {
    m_root = std::move(child);
    return;
  }
  auto& top = m_stack.back();
  top.count += count;
  top.height = std::max(top.height, height + 1);
  if (top.node.kind == NodeKind::sequence) {
    m_items.push_back(std::move(child));
  } else {
    attach_to_mapping(top, std::move(child));
  }
}

void TreeBuilder::attach_to_mapping(Frame& top, Node&& child) {
  if (!top.have_key) {
    top.have_key = true;
    top.key_pos = child.pos;
    top.key_is_merge = is_merge_key(child);
    top.key_invalid = !child.is_scalar();
    if (top.key_invalid) {
      report(child.pos, "yaml.complex-key",
             std::string("a mapping key must be a string, not an ") + to_string(child.kind), current_path());
      top.key.clear();
    } else {
      top.key = key_text(std::move(child));
    }
    return;
  }
  if (top.key_invalid) {
    top.have_key = false;
  } else if (top.key_is_merge) {
    const bool mapping = child.is_map();
    const bool list_of_mappings = child.is_seq() && std::all_of(child.items.begin(), child.items.end(),
                                                                [](const Node& n) { return n.is_map(); });
    if (mapping) {
      top.merges.push_back(std::move(child));
    } else if (list_of_mappings) {
      for (auto& item : child.items) top.merges.push_back(std::move(item));
    } else {
      report(child.pos, "yaml.bad-merge", "the merge key '<<' needs a mapping or a list of mappings",
             current_path());
    }
    top.have_key = false;
  } else {
    const auto existing = find_key(top, top.key);
    if (existing >= 0) {
      const auto first = m_key_pos[top.keys_start + static_cast<std::size_t>(existing)];
      report(top.key_pos, "yaml.duplicate-key",
             "duplicate key " + util::quote(top.key) + " (first at line " + std::to_string(first.line) + ")",
             current_path(), "remove one of them; Kubernetes rejects duplicate keys");
      top.have_key = false;
      return;
    }
    top.have_key = false;
    add_entry(top, std::move(top.key), top.key_pos, std::move(child));
  }
}

std::ptrdiff_t TreeBuilder::find_key(const Frame& top, const std::string& key) const {
  if (top.index) {
    const auto it = top.index->find(key);
    return it == top.index->end() ? -1 : static_cast<std::ptrdiff_t>(it->second);
  }
  for (std::size_t i = top.keys_start; i < m_keys.size(); ++i) {
    if (m_keys[i] == key) return static_cast<std::ptrdiff_t>(i - top.keys_start);
  }
  return -1;
}

void TreeBuilder::add_entry(Frame& top, std::string&& key, Position key_pos, Node&& value) {
  const auto size = m_keys.size() - top.keys_start;
  if (top.index) top.index->emplace(key, static_cast<std::uint32_t>(size));
  m_keys.push_back(std::move(key));
  m_key_pos.push_back(key_pos);
  m_items.push_back(std::move(value));
  if (!top.index && size + 1 >= k_index_threshold) {
    top.index = std::make_unique<std::unordered_map<std::string, std::uint32_t>>();
    top.index->reserve((size + 1) * 2);
    for (std::size_t i = top.keys_start; i < m_keys.size(); ++i) {
      top.index->emplace(m_keys[i], static_cast<std::uint32_t>(i - top.keys_start));
    }
  }
}

void TreeBuilder::apply_merges(Frame& top) {
  // Explicit keys win over merged ones, and earlier merge sources over later ones (YAML 1.1 merge).
  for (auto& source : top.merges) {
    for (std::size_t i = 0; i < source.keys.size(); ++i) {
      if (find_key(top, source.keys[i]) >= 0) continue;
      add_entry(top, std::move(source.keys[i]), source.key_positions[i], std::move(source.items[i]));
    }
  }
  top.merges.clear();
}

}  // namespace kpt::yaml
