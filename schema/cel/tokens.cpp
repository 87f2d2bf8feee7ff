#include "schema/cel/lexer.hpp"

#include <algorithm>
#include <array>

namespace kpt::cel {

std::string describe(TokenKind kind) {
  switch (kind) {
    case TokenKind::end:
      return "end of input";
    case TokenKind::ident:
      return "identifier";
    case TokenKind::int_lit:
    case TokenKind::uint_lit:
    case TokenKind::double_lit:
      return "number";
    case TokenKind::string_lit:
      return "string";
    case TokenKind::kw_true:
      return "'true'";
    case TokenKind::kw_false:
      return "'false'";
    case TokenKind::kw_null:
      return "'null'";
    case TokenKind::kw_in:
      return "'in'";
    case TokenKind::lparen:
      return "'('";
    case TokenKind::rparen:
      return "')'";
    case TokenKind::lbracket:
      return "'['";
    case TokenKind::rbracket:
      return "']'";
    case TokenKind::lbrace:
      return "'{'";
    case TokenKind::rbrace:
      return "'}'";
    case TokenKind::dot:
      return "'.'";
    case TokenKind::comma:
      return "','";
    case TokenKind::colon:
      return "':'";
    case TokenKind::question:
      return "'?'";
    case TokenKind::plus:
      return "'+'";
    case TokenKind::minus:
      return "'-'";
    case TokenKind::star:
      return "'*'";
    case TokenKind::slash:
      return "'/'";
    case TokenKind::percent:
      return "'%'";
    case TokenKind::eq:
      return "'=='";
    case TokenKind::ne:
      return "'!='";
    case TokenKind::lt:
      return "'<'";
    case TokenKind::le:
      return "'<='";
    case TokenKind::gt:
      return "'>'";
    case TokenKind::ge:
      return "'>='";
    case TokenKind::logical_and:
      return "'&&'";
    case TokenKind::logical_or:
      return "'||'";
    case TokenKind::logical_not:
      return "'!'";
  }
  return "token";
}

/// Not usable as variable or function names; they are legal field names (cel-go
/// parser/parser.go reservedIds).
bool is_reserved(std::string_view name) {
  static constexpr std::array<std::string_view, 17> k_reserved = {
      "as",  "break", "const",   "continue",  "else",   "for", "function", "if",   "import",
      "let", "loop",  "package", "namespace", "return", "var", "void",     "while"};
  return std::find(k_reserved.begin(), k_reserved.end(), name) != k_reserved.end();
}

std::string describe_token(const Token& tok) {
  if (tok.kind == TokenKind::ident) return "'" + tok.text + "'";
  return describe(tok.kind);
}

/// CEL's binary operators by precedence (cel-spec langdef.md); all are left-associative.
BinaryOp binary_op(TokenKind kind) {
  struct Entry {
    TokenKind token;
    BinaryOp op;
  };
  static constexpr Entry k_ops[] = {
      {TokenKind::logical_or, {Op::logical_or, 1}},
      {TokenKind::logical_and, {Op::logical_and, 2}},
      {TokenKind::eq, {Op::eq, 3}},
      {TokenKind::ne, {Op::ne, 3}},
      {TokenKind::lt, {Op::lt, 3}},
      {TokenKind::le, {Op::le, 3}},
      {TokenKind::gt, {Op::gt, 3}},
      {TokenKind::ge, {Op::ge, 3}},
      {TokenKind::kw_in, {Op::in, 3}},
      {TokenKind::plus, {Op::add, 4}},
      {TokenKind::minus, {Op::sub, 4}},
      {TokenKind::star, {Op::mul, 5}},
      {TokenKind::slash, {Op::div, 5}},
      {TokenKind::percent, {Op::mod, 5}},
  };
  for (const auto& e : k_ops) {
    if (e.token == kind) return e.op;
  }
  return {};
}

/// The value of a literal token; nothing for other tokens.
std::optional<Value> literal_value(const Token& tok) {
  switch (tok.kind) {
    case TokenKind::int_lit:
      return Value::int64(static_cast<std::int64_t>(tok.number));
    case TokenKind::uint_lit:
      return Value::uint64(tok.number);
    case TokenKind::double_lit:
      return Value::from_double(tok.real);
    case TokenKind::string_lit:
      return Value::string(tok.text);
    case TokenKind::kw_true:
      return Value::boolean(true);
    case TokenKind::kw_false:
      return Value::boolean(false);
    case TokenKind::kw_null:
      return Value::null();
    default:
      return std::nullopt;
  }
}

}  // namespace kpt::cel
