#include "schema/cel/parser.hpp"

#include "schema/cel/ast_builder.hpp"
#include "schema/cel/lexer.hpp"

#include <algorithm>
#include <limits>

namespace kpt::cel {
namespace {

constexpr int k_tightest_level = 5;

class Parser {
 public:
  Parser(std::vector<Token> tokens, const Limits& limits)
      : m_tokens(std::move(tokens)), m_limits(limits), m_b(limits) {}

  ParseResult run() {
    ParseResult out;
    const NodeId root = expr();
    if (!m_b.failed() && peek().kind != TokenKind::end)
      fail(peek().offset, "unexpected " + describe_token(peek()));
    out.ast.nodes = m_b.take_nodes();
    out.ast.root = root;
    out.error = m_b.take_error();
    return out;
  }

 private:
  [[nodiscard]] const Token& peek(std::size_t ahead = 0) const {
    return m_tokens[std::min(m_pos + ahead, m_tokens.size() - 1)];
  }
  const Token& advance() {
    const Token& tok = peek();
    if (m_pos + 1 < m_tokens.size()) ++m_pos;
    return tok;
  }
  bool accept(TokenKind kind) {
    if (peek().kind != kind) return false;
    advance();
    return true;
  }
  bool expect(TokenKind kind) {
    if (accept(kind)) return true;
    fail(peek().offset, "expected " + describe(kind) + " but found " + describe_token(peek()));
    return false;
  }

  NodeId fail(std::uint32_t offset, std::string message, CompileErrorKind kind = CompileErrorKind::syntax) {
    return m_b.fail(offset, std::move(message), kind);
  }
  NodeId make(NodeKind kind, std::uint32_t offset, std::vector<NodeId> args, Op op = Op::none) {
    return m_b.make(kind, offset, std::move(args), op);
  }
  /// A node that carries the name of the token it starts at: ident, select, call.
  NodeId named(NodeKind kind, const Token& name, std::vector<NodeId> args, bool member = false) {
    Node node;
    node.kind = kind;
    node.offset = name.offset;
    node.name = name.text;
    node.member = member;
    node.args = std::move(args);
    return m_b.add(std::move(node));
  }

  NodeId expr() {
    if (++m_recursion > m_limits.max_depth) return m_b.nesting_error(peek().offset);
    NodeId cond = binary(1);
    if (!m_b.failed() && peek().kind == TokenKind::question) {
      const std::uint32_t offset = advance().offset;
      const NodeId yes = binary(1);
      if (!m_b.failed() && expect(TokenKind::colon))
        cond = make(NodeKind::conditional, offset, {cond, yes, expr()});
    }
    --m_recursion;
    return m_b.failed() ? k_bad : cond;
  }

  /// The binary operators of `level` and tighter: `a op b op c` as ((a op b) op c).
  NodeId binary(int level) {
    NodeId left = level == k_tightest_level ? unary() : binary(level + 1);
    while (!m_b.failed()) {
      const BinaryOp op = binary_op(peek().kind);
      if (op.level != level) break;
      const std::uint32_t offset = advance().offset;
      const NodeId right = level == k_tightest_level ? unary() : binary(level + 1);
      left = make(NodeKind::binary, offset, {left, right}, op.op);
    }
    return left;
  }

  NodeId unary() {
    const TokenKind k = peek().kind;
    if (k != TokenKind::logical_not && k != TokenKind::minus) return member();
    const std::uint32_t offset = peek().offset;
    std::size_t count = 0;
    while (peek().kind == k) advance(), ++count;
    NodeId operand = k_bad;
    if (k == TokenKind::minus && negatable_literal()) {
      operand = negative_literal();
      --count;
    } else {
      operand = member();
    }
    for (; count > 0 && !m_b.failed(); --count) {
      operand =
          make(NodeKind::unary, offset, {operand}, k == TokenKind::minus ? Op::negate : Op::logical_not);
    }
    return operand;
  }

  /// `-` directly before a number with no member access after it is part of the literal, so
  /// that -9223372036854775808 is an int.
  [[nodiscard]] bool negatable_literal() const {
    const TokenKind k = peek().kind;
    const TokenKind after = peek(1).kind;
    return (k == TokenKind::int_lit || k == TokenKind::double_lit) && after != TokenKind::dot &&
           after != TokenKind::lbracket;
  }

  NodeId negative_literal() {
    const Token& tok = advance();
    if (tok.kind == TokenKind::double_lit) return m_b.literal(tok.offset, Value::from_double(-tok.real));
    if (tok.number == std::uint64_t{1} << 63) {
      return m_b.literal(tok.offset, Value::int64(std::numeric_limits<std::int64_t>::min()));
    }
    return m_b.literal(tok.offset, Value::int64(-static_cast<std::int64_t>(tok.number)));
  }

  NodeId member() {
    NodeId target = primary();
    while (!m_b.failed()) {
      if (peek().kind == TokenKind::dot) {
        target = member_access(target);
      } else if (peek().kind == TokenKind::lbracket) {
        const std::uint32_t offset = advance().offset;
        if (peek().kind == TokenKind::question) {
          return fail(offset, "optional index ('[?')", CompileErrorKind::unsupported);
        }
        const NodeId index = expr();
        if (!m_b.failed() && expect(TokenKind::rbracket))
          target = make(NodeKind::index, offset, {target, index});
      } else {
        break;
      }
    }
    return m_b.failed() ? k_bad : target;
  }

  NodeId member_access(NodeId target) {
    const std::uint32_t offset = advance().offset;
    if (peek().kind == TokenKind::question) {
      return fail(offset, "optional field selection ('.?')", CompileErrorKind::unsupported);
    }
    if (peek().kind != TokenKind::ident) {
      return fail(peek().offset, "expected a field name after '.' but found " + describe_token(peek()));
    }
    const Token& name = advance();
    if (peek().kind == TokenKind::lparen) return call(name, target);
    if (peek().kind == TokenKind::lbrace)
      return fail(name.offset, "message construction", CompileErrorKind::unsupported);
    return named(NodeKind::select, name, {target});
  }

  NodeId primary() {
    const Token& tok = peek();
    switch (tok.kind) {
      case TokenKind::dot:
        advance();
        if (peek().kind != TokenKind::ident)
          return fail(peek().offset, "unexpected " + describe_token(peek()));
        return identifier();
      case TokenKind::ident:
        return identifier();
      case TokenKind::lparen: {
        advance();
        const NodeId inner = expr();
        return !m_b.failed() && expect(TokenKind::rparen) ? inner : k_bad;
      }
      case TokenKind::lbracket:
        return list_literal();
      case TokenKind::lbrace:
        return map_literal();
      case TokenKind::int_lit:
        if (tok.number > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
          return fail(tok.offset, "invalid int literal");
        }
        break;
      default:
        break;
    }
    auto value = literal_value(tok);
    if (!value) return fail(tok.offset, "unexpected " + describe_token(tok));
    advance();
    return m_b.literal(tok.offset, std::move(*value));
  }

  NodeId identifier() {
    const Token& name = advance();
    if (is_reserved(name.text)) return fail(name.offset, "reserved identifier '" + name.text + "'");
    if (peek().kind == TokenKind::lparen) return call(name, k_bad);
    if (peek().kind == TokenKind::lbrace)
      return fail(name.offset, "message construction", CompileErrorKind::unsupported);
    return named(NodeKind::ident, name, {});
  }

  /// Comma-separated expressions up to `close` (a trailing comma allowed when `trailing`).
  /// Nesting is bounded by expr(), which every nested construct goes through.
  bool expr_list(TokenKind close, std::vector<NodeId>& out, bool trailing) {
    while (!m_b.failed() && peek().kind != close) {
      if (peek().kind == TokenKind::question) {
        fail(peek().offset, "optional elements ('?')", CompileErrorKind::unsupported);
        break;
      }
      out.push_back(expr());
      if (!accept(TokenKind::comma)) break;
      if (!trailing && peek().kind == close) fail(peek().offset, "unexpected " + describe_token(peek()));
    }
    return !m_b.failed() && expect(close);
  }

  NodeId list_literal() {
    const std::uint32_t offset = advance().offset;
    std::vector<NodeId> items;
    if (!expr_list(TokenKind::rbracket, items, true)) return k_bad;
    return make(NodeKind::list, offset, std::move(items));
  }

  NodeId map_literal() {
    const std::uint32_t offset = advance().offset;
    std::vector<NodeId> entries;
    while (!m_b.failed() && peek().kind != TokenKind::rbrace) {
      if (peek().kind == TokenKind::question)
        return fail(peek().offset, "optional entries ('?')", CompileErrorKind::unsupported);
      entries.push_back(expr());
      if (m_b.failed() || !expect(TokenKind::colon)) break;
      entries.push_back(expr());
      if (!accept(TokenKind::comma)) break;
    }
    if (m_b.failed() || !expect(TokenKind::rbrace)) return k_bad;
    return make(NodeKind::map, offset, std::move(entries));
  }

  NodeId call(const Token& name, NodeId target) {
    advance();  // '('
    std::vector<NodeId> args;
    if (target != k_bad) args.push_back(target);
    if (!expr_list(TokenKind::rparen, args, false)) return k_bad;
    const bool member = target != k_bad;
    if (!member && name.text == "has") return expand_has(m_b, name.offset, args);
    if (member) {
      const NodeId macro = expand_macro(m_b, name.text, name.offset, args);
      if (macro != k_bad || m_b.failed()) return macro;
    }
    return named(NodeKind::call, name, std::move(args), member);
  }

  std::vector<Token> m_tokens;
  const Limits& m_limits;
  AstBuilder m_b;
  std::size_t m_pos = 0;
  std::uint32_t m_recursion = 0;
};

}  // namespace

ParseResult parse(std::string_view source, const Limits& limits) {
  if (source.size() > limits.max_source_bytes) {
    ParseResult out;
    out.error =
        CompileError{CompileErrorKind::limit, 0,
                     "expression is longer than " + std::to_string(limits.max_source_bytes) + " bytes"};
    return out;
  }
  LexResult lexed = lex(source);
  if (lexed.error) {
    ParseResult out;
    out.error = std::move(lexed.error);
    return out;
  }
  return Parser(std::move(lexed.tokens), limits).run();
}

}  // namespace kpt::cel
