#include "yaml/simple_yaml.hpp"

#include "yaml/yaml_tree_builder.hpp"

#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

namespace kpt::yaml {
namespace {

constexpr std::size_t k_npos = std::string_view::npos;
constexpr std::size_t k_max_key = 1000;  // libyaml's simple keys end at 1024 characters

/// Printable ASCII and newlines only: columns are then byte offsets, and no BOM, tab, CR,
/// NEL or control character can change how libyaml reads the text.
bool plain_ascii(std::string_view text) {
  const auto byte_ok = [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u >= 0x20 && u < 0x7f) || u == '\n';
  };
  constexpr std::uint64_t k_ones = 0x0101010101010101ULL;
  constexpr std::uint64_t k_highs = 0x8080808080808080ULL;
  std::size_t i = 0;
  // Eight bytes at a time: no high bit, no DEL, and (the common case) nothing below 0x20;
  // a word with a byte below 0x20 (usually a newline) is checked byte by byte.
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, text.data() + i, sizeof w);
    const std::uint64_t del = w ^ (k_ones * 0x7f);
    if ((w & k_highs) != 0 || ((del - k_ones) & ~del & k_highs) != 0) return false;
    if (((w - k_ones * 0x20) & ~w & k_highs) != 0) {
      for (std::size_t j = i; j < i + 8; ++j) {
        if (!byte_ok(text[j])) return false;
      }
    }
  }
  for (; i < text.size(); ++i) {
    if (!byte_ok(text[i])) return false;
  }
  return true;
}

/// Characters that start something other than a plain scalar (YAML's c-indicator).
bool is_indicator(char c) {
  switch (c) {
    case '-':
    case '?':
    case ':':
    case ',':
    case '[':
    case ']':
    case '{':
    case '}':
    case '#':
    case '&':
    case '*':
    case '!':
    case '|':
    case '>':
    case '\'':
    case '"':
    case '%':
    case '@':
    case '`':
      return true;
    default:
      return false;
  }
}

/// Characters that end or complicate a plain scalar inside a flow collection.
bool is_flow_special(char c) {
  switch (c) {
    case ',':
    case '[':
    case ']':
    case '{':
    case '}':
    case ':':
    case '#':
    case '?':
    case '\'':
    case '"':
      return true;
    default:
      return false;
  }
}

class SimpleReader {
 public:
  SimpleReader(const std::string& name, const std::shared_ptr<const std::string>& text,
               const ReadLimits& limits)
      : m_name(name), m_text(text), m_limits(limits), m_builder(limits, name, m_out.findings) {}

  bool run() {
    const std::string_view all = *m_text;
    std::uint32_t line_no = 0;
    for (std::size_t start = 0; start < all.size();) {
      auto end = all.find('\n', start);
      if (end == k_npos) end = all.size();
      ++line_no;
      if (!line(all.substr(start, end - start), line_no)) return false;
      start = end + 1;
    }
    if (!m_doc_open) return false;  // no content at all: libyaml decides what that is
    return finish_document() && m_out.findings.empty();
  }

  ReadResult take() { return std::move(m_out); }

 private:
  struct Open {
    NodeKind kind;
    std::uint32_t indent;
    bool indentless;
  };

  bool line(std::string_view text, std::uint32_t ln) {
    std::size_t m = 0;
    while (m < text.size() && text[m] == ' ') ++m;
    if (m == text.size() || text[m] == '#') return true;  // blank or comment-only
    if (m == 0 && (text.substr(0, 3) == "---" || text.substr(0, 3) == "...")) {
      if (text != "---") return false;
      if (m_doc_open && !finish_document()) return false;
      begin_document(Position{ln, 1});
      return true;
    }
    m_ln = ln;
    m_line = text;
    const auto indent = static_cast<std::uint32_t>(m);
    if (!m_doc_open) begin_document(Position{ln, indent + 1});
    if (!m_root_started) {
      if (m != 0) return false;
      m_root_started = true;
      return open_block(m);
    }
    return content(m);
  }

  void begin_document(Position start) {
    m_builder.begin_document(false);
    m_doc_start = start;
    m_doc_open = true;
    m_root_started = false;
  }

  bool finish_document() {
    if (!m_root_started) return false;  // an empty document
    if (m_pending) emit_pending_null();
    while (!m_stack.empty()) close_top();
    auto root = m_builder.end_document();
    if (!root || root->kind == NodeKind::null || m_doc_index >= m_limits.max_documents) return false;
    m_out.documents.push_back(Document{m_name, m_doc_index++, m_doc_start, std::move(*root), m_text});
    m_doc_open = false;
    return true;
  }

  void close_top() {
    m_builder.end_container();
    m_stack.pop_back();
  }

  [[nodiscard]] bool is_entry(std::size_t at) const {
    return m_line[at] == '-' && (at + 1 == m_line.size() || m_line[at + 1] == ' ');
  }

  [[nodiscard]] Position pos(std::size_t at) const {
    return Position{m_ln, static_cast<std::uint32_t>(at + 1)};
  }

  void emit_pending_null() {
    m_pending = false;
    m_builder.scalar(std::string(), m_pending_pos, ScalarStyle{}, {});
  }

  /// A content line of an open document at indentation `m`.
  bool content(std::size_t m) {
    if (m_pending) {
      m_pending = false;
      if (m > m_pending_indent) return open_block(m);
      if (m == m_pending_indent && is_entry(m)) {
        m_builder.begin_container(NodeKind::sequence, pos(m), {});
        m_stack.push_back(Open{NodeKind::sequence, static_cast<std::uint32_t>(m), true});
        return entry(m);
      }
      m_builder.scalar(std::string(), m_pending_pos, ScalarStyle{}, {});
    }
    while (!m_stack.empty()) {
      const auto& top = m_stack.back();
      if (top.indent > m || (top.indentless && top.indent == m && !is_entry(m))) {
        close_top();
        continue;
      }
      break;
    }
    if (m_stack.empty() || m_stack.back().indent != m) return false;
    if (m_stack.back().kind == NodeKind::sequence) return is_entry(m) && entry(m);
    return !is_entry(m) && key_line(m);
  }

  /// A block collection whose first line starts at column `c`.
  bool open_block(std::size_t c) {
    // `- - - ...` on one line recurses through entry(): past the depth limit libyaml (iterative)
    // takes the file and the tree builder reports yaml.too-deep, with no deep native stack here.
    if (m_stack.size() >= m_limits.max_depth) return false;
    if (is_entry(c)) {
      m_builder.begin_container(NodeKind::sequence, pos(c), {});
      m_stack.push_back(Open{NodeKind::sequence, static_cast<std::uint32_t>(c), false});
      return entry(c);
    }
    m_builder.begin_container(NodeKind::mapping, pos(c), {});
    m_stack.push_back(Open{NodeKind::mapping, static_cast<std::uint32_t>(c), false});
    return key_line(c);
  }

  /// `- ...` at column `n`.
  bool entry(std::size_t n) {
    std::size_t c = n + 1;
    while (c < m_line.size() && m_line[c] == ' ') ++c;
    if (c == m_line.size() || m_line[c] == '#') return false;  // the item is on later lines
    if (is_entry(c) || key_colon(c) != k_npos) return open_block(c);
    return block_value(c);
  }

  /// Where the `:` ending a plain key that starts at `c` is, or npos when the line is no key line.
  [[nodiscard]] std::size_t key_colon(std::size_t c) const {
    if (is_indicator(m_line[c])) return k_npos;
    for (std::size_t i = c; i < m_line.size(); ++i) {
      const char ch = m_line[i];
      if (ch == ':' && (i + 1 == m_line.size() || m_line[i + 1] == ' ')) return i;
      if (ch == '#' && m_line[i - 1] == ' ') return k_npos;
    }
    return k_npos;
  }

  /// `key: value`, `key:` (value on the next lines) at column `c` of a block mapping.
  bool key_line(std::size_t c) {
    const auto colon = key_colon(c);
    if (colon == k_npos || m_line[colon - 1] == ' ' || colon - c > k_max_key) return false;
    m_builder.scalar(std::string(m_line.substr(c, colon - c)), pos(c), ScalarStyle{}, {});
    std::size_t v = colon + 1;
    while (v < m_line.size() && m_line[v] == ' ') ++v;
    if (v == m_line.size() || m_line[v] == '#') {
      m_pending = true;
      m_pending_indent = c;
      m_pending_pos = pos(colon + 1);
      return true;
    }
    return block_value(v);
  }

  /// Only blanks and a comment may follow a value.
  [[nodiscard]] bool rest_is_empty(std::size_t i) const {
    while (i < m_line.size() && m_line[i] == ' ') ++i;
    return i == m_line.size() || (m_line[i] == '#' && m_line[i - 1] == ' ');
  }

  /// A scalar or flow collection at column `v` that ends the line.
  bool block_value(std::size_t v) {
    const char first = m_line[v];
    std::size_t end = k_npos;
    if (first == '[' || first == '{') {
      end = flow(v);
    } else if (first == '"' || first == '\'') {
      end = quoted(v);
    } else if (first == '-' && v + 1 < m_line.size() && m_line[v + 1] != ' ') {
      end = block_plain(v);
    } else if (!is_indicator(first)) {
      end = block_plain(v);
    }
    return end != k_npos && rest_is_empty(end);
  }

  std::size_t block_plain(std::size_t v) {
    std::size_t i = v;
    for (; i < m_line.size(); ++i) {
      const char ch = m_line[i];
      if (ch == ':' && (i + 1 == m_line.size() || m_line[i + 1] == ' ')) return k_npos;
      if (ch == '#' && m_line[i - 1] == ' ') break;
    }
    std::size_t end = i;
    while (end > v && m_line[end - 1] == ' ') --end;
    m_builder.scalar(std::string(m_line.substr(v, end - v)), pos(v), ScalarStyle{}, {});
    return end;
  }

  /// A one-line quoted scalar without escapes; returns the index after its closing quote.
  std::size_t quoted(std::size_t v) {
    const char q = m_line[v];
    const auto close = m_line.find(q, v + 1);
    if (close == k_npos) return k_npos;
    const auto body = m_line.substr(v + 1, close - v - 1);
    if (q == '"' && body.find('\\') != k_npos) return k_npos;
    if (q == '\'' && close + 1 < m_line.size() && m_line[close + 1] == '\'') return k_npos;
    ScalarStyle style;
    style.quoted = true;
    m_builder.scalar(std::string(body), pos(v), style, {});
    return close + 1;
  }

  /// A scalar inside a flow collection, ended by `,` or the closing bracket.
  std::size_t flow_scalar(std::size_t v) {
    if (v >= m_line.size()) return k_npos;
    const char first = m_line[v];
    if (first == '"' || first == '\'') return quoted(v);
    if (is_indicator(first) &&
        !(first == '-' && v + 1 < m_line.size() && !is_flow_special(m_line[v + 1]) && m_line[v + 1] != ' ')) {
      return k_npos;
    }
    std::size_t i = v;
    while (i < m_line.size() && !is_flow_special(m_line[i])) ++i;
    if (i == m_line.size() || (m_line[i] != ',' && m_line[i] != ']' && m_line[i] != '}')) return k_npos;
    std::size_t end = i;
    while (end > v && m_line[end - 1] == ' ') --end;
    if (end == v) return k_npos;
    m_builder.scalar(std::string(m_line.substr(v, end - v)), pos(v), ScalarStyle{}, {});
    return end;
  }

  [[nodiscard]] std::size_t skip_blanks(std::size_t i) const {
    while (i < m_line.size() && m_line[i] == ' ') ++i;
    return i;
  }

  /// `[a, "b"]` or `{k: v, k2: "v2"}` on one line, one level deep; returns the index after it.
  std::size_t flow(std::size_t v) {
    const bool is_map = m_line[v] == '{';
    const char close = is_map ? '}' : ']';
    m_builder.begin_container(is_map ? NodeKind::mapping : NodeKind::sequence, pos(v), {});
    std::size_t i = skip_blanks(v + 1);
    if (i < m_line.size() && m_line[i] == close) {
      m_builder.end_container();
      return i + 1;
    }
    for (;;) {
      if (is_map) {
        i = flow_key(i);
        if (i == k_npos) return k_npos;
      }
      i = flow_scalar(i);
      if (i == k_npos) return k_npos;
      i = skip_blanks(i);
      if (i == m_line.size()) return k_npos;
      if (m_line[i] == close) break;
      if (m_line[i] != ',') return k_npos;
      i = skip_blanks(i + 1);
      if (i == m_line.size() || m_line[i] == close) return k_npos;  // a trailing comma
    }
    m_builder.end_container();
    return i + 1;
  }

  /// `key: ` inside a flow mapping; returns where the value starts.
  std::size_t flow_key(std::size_t k) {
    if (k >= m_line.size() || is_indicator(m_line[k])) return k_npos;
    std::size_t i = k;
    while (i < m_line.size() && !is_flow_special(m_line[i])) ++i;
    if (i + 1 >= m_line.size() || m_line[i] != ':' || m_line[i + 1] != ' ' || m_line[i - 1] == ' ')
      return k_npos;
    m_builder.scalar(std::string(m_line.substr(k, i - k)), pos(k), ScalarStyle{}, {});
    return skip_blanks(i + 1);
  }

  const std::string& m_name;
  const std::shared_ptr<const std::string>& m_text;
  const ReadLimits& m_limits;
  ReadResult m_out;
  TreeBuilder m_builder;
  std::vector<Open> m_stack;
  std::string_view m_line;
  std::uint32_t m_ln = 0;
  Position m_doc_start;
  std::size_t m_doc_index = 0;
  bool m_doc_open = false;
  bool m_root_started = false;
  bool m_pending = false;  ///< a `key:` waits for its value on later lines
  std::size_t m_pending_indent = 0;
  Position m_pending_pos;
};

}  // namespace

std::optional<ReadResult> read_simple_yaml(const std::string& name,
                                           const std::shared_ptr<const std::string>& text,
                                           const ReadLimits& limits) {
  if (!text || !plain_ascii(*text)) return std::nullopt;
  SimpleReader reader(name, text, limits);
  if (!reader.run()) return std::nullopt;
  return reader.take();
}

}  // namespace kpt::yaml
