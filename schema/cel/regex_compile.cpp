#include "schema/cel/regex.hpp"
#include "schema/cel/regex_syntax.hpp"

#include <string>

namespace kpt::cel::regex {
namespace {

/// Turns the syntax tree into Pike VM instructions, bounded by the instruction limit (counted
/// also on nodes that emit nothing, so `((){1000}){1000}` cannot spin).
class ProgramBuilder {
 public:
  explicit ProgramBuilder(const RegexLimits& limits) : m_limits(limits) {}

  bool emit(const SyntaxNode& node) {
    if (++m_visits > m_limits.max_instructions || m_insts.size() > m_limits.max_instructions) return false;
    switch (node.kind) {
      case SyntaxKind::empty:
        return true;
      case SyntaxKind::chars:
        return emit_chars(node);
      case SyntaxKind::assertion: {
        Inst inst;
        inst.op = InstOp::assertion;
        inst.assertion = node.assertion;
        return push(inst);
      }
      case SyntaxKind::concat:
        for (const auto& child : node.children) {
          if (!emit(child)) return false;
        }
        return true;
      case SyntaxKind::alternate:
        return emit_alternate(node);
      case SyntaxKind::repeat:
        return emit_repeat(node);
    }
    return false;
  }

  bool finish() {
    Inst match;
    match.op = InstOp::match;
    return push(match);
  }

  std::vector<Inst> take_insts() { return std::move(m_insts); }
  std::vector<Range> take_ranges() { return std::move(m_ranges); }

 private:
  bool push(Inst inst) {
    if (m_insts.size() >= m_limits.max_instructions) return false;
    m_insts.push_back(inst);
    return true;
  }
  [[nodiscard]] std::uint32_t here() const { return static_cast<std::uint32_t>(m_insts.size()); }

  bool emit_chars(const SyntaxNode& node) {
    Inst inst;
    inst.op = InstOp::char_class;
    inst.x = static_cast<std::uint32_t>(m_ranges.size());
    m_ranges.insert(m_ranges.end(), node.ranges.begin(), node.ranges.end());
    inst.y = static_cast<std::uint32_t>(m_ranges.size());
    return push(inst);
  }

  bool emit_split(std::uint32_t& at) {
    Inst split;
    split.op = InstOp::split;
    at = here();
    split.x = at + 1;
    return push(split);
  }

  bool emit_jump(std::uint32_t target, std::uint32_t& at) {
    Inst jump;
    jump.op = InstOp::jump;
    jump.x = target;
    at = here();
    return push(jump);
  }

  /// a|b|c: split(a, split(b, c)), each branch jumping to the end.
  bool emit_alternate(const SyntaxNode& node) {
    std::vector<std::uint32_t> jumps;
    for (std::size_t i = 0; i < node.children.size(); ++i) {
      std::uint32_t split = 0;
      const bool last = i + 1 == node.children.size();
      if (!last && !emit_split(split)) return false;
      if (!emit(node.children[i])) return false;
      if (last) break;
      std::uint32_t jump = 0;
      if (!emit_jump(0, jump)) return false;
      jumps.push_back(jump);
      m_insts[split].y = here();
    }
    for (std::uint32_t jump : jumps) m_insts[jump].x = here();
    return true;
  }

  /// x{n,m} as n copies of x then m-n optional ones; x{n,} as n copies then a loop.
  bool emit_repeat(const SyntaxNode& node) {
    const SyntaxNode& body = node.children.front();
    for (int i = 0; i < node.min; ++i) {
      if (!emit(body)) return false;
    }
    if (node.max < 0) {
      std::uint32_t split = 0;
      if (!emit_split(split) || !emit(body)) return false;
      std::uint32_t jump = 0;
      if (!emit_jump(split, jump)) return false;
      m_insts[split].y = here();
      return true;
    }
    std::vector<std::uint32_t> splits;
    for (int i = node.min; i < node.max; ++i) {
      std::uint32_t split = 0;
      if (!emit_split(split) || !emit(body)) return false;
      splits.push_back(split);
    }
    for (std::uint32_t split : splits) m_insts[split].y = here();
    return true;
  }

  const RegexLimits& m_limits;
  std::vector<Inst> m_insts;
  std::vector<Range> m_ranges;
  std::size_t m_visits = 0;
};

/// Whether every match must begin at the start of the text (a leading ^ or \A).
bool anchored_start(const SyntaxNode& node) {
  if (node.kind == SyntaxKind::assertion) return node.assertion == Assertion::begin_text;
  if (node.kind == SyntaxKind::concat && !node.children.empty()) return anchored_start(node.children.front());
  return false;
}

}  // namespace

std::variant<std::shared_ptr<const Regex>, RegexError> Regex::compile(std::string_view pattern,
                                                                      const RegexLimits& limits) {
  if (pattern.size() > limits.max_pattern_bytes) {
    return RegexError{
        true, "regular expression longer than " + std::to_string(limits.max_pattern_bytes) + " bytes"};
  }
  SyntaxResult syntax = parse_syntax(pattern, limits);
  if (syntax.error) return *syntax.error;
  ProgramBuilder builder(limits);
  if (!builder.emit(syntax.root) || !builder.finish()) {
    return RegexError{
        true, "regular expression larger than " + std::to_string(limits.max_instructions) + " instructions"};
  }
  return std::make_shared<const Regex>(builder.take_insts(), builder.take_ranges(),
                                       anchored_start(syntax.root));
}

}  // namespace kpt::cel::regex
