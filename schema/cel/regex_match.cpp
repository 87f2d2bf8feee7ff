#include "schema/cel/regex.hpp"
#include "schema/cel/utf8.hpp"

#include <algorithm>

namespace kpt::cel::regex {
namespace {

constexpr char32_t k_none = 0xFFFFFFFF;  ///< no character: before the start or past the end

/// A set of instruction indexes with O(1) insert, lookup and clear (Briggs and Torczon).
class SparseSet {
 public:
  explicit SparseSet(std::size_t n) : m_dense(n), m_sparse(n) {}
  [[nodiscard]] bool contains(std::uint32_t v) const {
    const std::uint32_t i = m_sparse[v];
    return i < m_size && m_dense[i] == v;
  }
  void insert(std::uint32_t v) {
    m_sparse[v] = m_size;
    m_dense[m_size++] = v;
  }
  void clear() { m_size = 0; }
  [[nodiscard]] std::uint32_t size() const { return m_size; }
  [[nodiscard]] std::uint32_t operator[](std::uint32_t i) const { return m_dense[i]; }

 private:
  std::vector<std::uint32_t> m_dense;
  std::vector<std::uint32_t> m_sparse;
  std::uint32_t m_size = 0;
};

bool is_word(char32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/// The characters on either side of a position, for the zero-width assertions.
struct Context {
  char32_t prev = k_none;
  char32_t next = k_none;
};

bool holds(Assertion a, Context ctx) {
  switch (a) {
    case Assertion::begin_text:
      return ctx.prev == k_none;
    case Assertion::end_text:
      return ctx.next == k_none;
    case Assertion::begin_line:
      return ctx.prev == k_none || ctx.prev == '\n';
    case Assertion::end_line:
      return ctx.next == k_none || ctx.next == '\n';
    case Assertion::word_boundary:
      return is_word(ctx.prev) != is_word(ctx.next);
    case Assertion::not_word_boundary:
      return is_word(ctx.prev) == is_word(ctx.next);
  }
  return false;
}

char32_t rune_at(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return k_none;
  return utf8::decode(text, pos);
}

}  // namespace

namespace {

/// The Pike VM over one text: a thread per instruction, advanced a character at a time.
class Machine {
 public:
  Machine(const std::vector<Inst>& insts, const std::vector<Range>& ranges)
      : m_insts(insts), m_ranges(ranges), m_current(insts.size()), m_next(insts.size()) {
    m_stack.reserve(insts.size());
  }

  bool run(std::string_view text, bool anchored) {
    std::size_t pos = 0;
    Context ctx{k_none, rune_at(text, 0)};
    while (true) {
      if ((pos == 0 || !anchored) && add(m_current, 0, ctx)) return true;
      if (ctx.next == k_none || (anchored && m_current.size() == 0)) return false;
      const char32_t c = ctx.next;
      utf8::decode(text, pos);
      ctx = Context{c, rune_at(text, pos)};
      if (step(c, ctx)) return true;
      std::swap(m_current, m_next);
      m_next.clear();
    }
  }

 private:
  /// Moves every thread that accepts `c` on to the next position.
  bool step(char32_t c, Context ctx) {
    for (std::uint32_t i = 0; i < m_current.size(); ++i) {
      const std::uint32_t pc = m_current[i];
      const Inst& inst = m_insts[pc];
      if (inst.op == InstOp::char_class && in_class(inst, c) && add(m_next, pc + 1, ctx)) return true;
    }
    return false;
  }

  [[nodiscard]] bool in_class(const Inst& inst, char32_t c) const {
    if (inst.y == inst.x + 1) return m_ranges[inst.x].lo <= c && c <= m_ranges[inst.x].hi;  // most classes
    const auto first = m_ranges.begin() + inst.x;
    const auto last = m_ranges.begin() + inst.y;
    const auto it = std::upper_bound(first, last, c, [](char32_t v, const Range& r) { return v < r.lo; });
    return it != first && std::prev(it)->hi >= c;
  }

  /// Adds the thread at `pc` and everything it reaches without consuming a character; true as
  /// soon as one of them is the match instruction.
  bool add(SparseSet& list, std::uint32_t pc, Context ctx) {
    if (m_insts[pc].op == InstOp::char_class) {  // the common case needs no stack
      if (!list.contains(pc)) list.insert(pc);
      return false;
    }
    m_stack.clear();
    m_stack.push_back(pc);
    while (!m_stack.empty()) {
      const std::uint32_t at = m_stack.back();
      m_stack.pop_back();
      if (list.contains(at)) continue;
      list.insert(at);
      const Inst& inst = m_insts[at];
      switch (inst.op) {
        case InstOp::match:
          return true;
        case InstOp::jump:
          m_stack.push_back(inst.x);
          break;
        case InstOp::split:
          m_stack.push_back(inst.y);
          m_stack.push_back(inst.x);
          break;
        case InstOp::assertion:
          if (holds(inst.assertion, ctx)) m_stack.push_back(at + 1);
          break;
        case InstOp::char_class:
          break;
      }
    }
    return false;
  }

  const std::vector<Inst>& m_insts;
  const std::vector<Range>& m_ranges;
  SparseSet m_current;
  SparseSet m_next;
  std::vector<std::uint32_t> m_stack;
};

}  // namespace

bool Regex::search(std::string_view text) const {
  return Machine(m_insts, m_ranges).run(text, m_anchored_start);
}

}  // namespace kpt::cel::regex
