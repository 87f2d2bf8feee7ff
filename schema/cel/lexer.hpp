#pragma once

#include "schema/cel/ast.hpp"
#include "schema/cel/compile_error.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kpt::cel {

enum class TokenKind : std::uint8_t {
  end,
  ident,
  int_lit,     ///< magnitude in `number` (up to 2^63, so that the parser can negate it)
  uint_lit,    ///< value in `number`
  double_lit,  ///< value in `real`
  string_lit,  ///< decoded text in `text`
  kw_true,
  kw_false,
  kw_null,
  kw_in,
  lparen,
  rparen,
  lbracket,
  rbracket,
  lbrace,
  rbrace,
  dot,
  comma,
  colon,
  question,
  plus,
  minus,
  star,
  slash,
  percent,
  eq,
  ne,
  lt,
  le,
  gt,
  ge,
  logical_and,
  logical_or,
  logical_not,
};

/// How a token reads in an error message ("')'", "identifier", "end of input").
std::string describe(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::end;
  std::uint32_t offset = 0;  ///< byte offset of the token's first character in the rule
  std::string text;          ///< identifier name or decoded string
  std::uint64_t number = 0;
  double real = 0;
};

/// Splits a CEL expression into tokens, ending with one `end` token. Strings take every CEL
/// form: '...', "...", triple-quoted, raw (r'...'), and all escapes (\n, \x41, \u00e9,
/// \U0001F600, \101, ...). Bytes literals (b'...') and quoted field names are reported as
/// unsupported; anything else malformed is a syntax error at its offset.
struct LexResult {
  std::vector<Token> tokens;
  std::optional<CompileError> error;
};
LexResult lex(std::string_view source);

/// A token as a message names it: "'foo'" for an identifier, else as describe(kind).
std::string describe_token(const Token& tok);

/// Not usable as variable or function names, though legal as field names (cel-go
/// parser/parser.go reservedIds).
bool is_reserved(std::string_view name);

struct BinaryOp {
  Op op = Op::none;
  int level = 0;  ///< 1 for ||, 2 for &&, 3 for relations, 4 for + -, 5 for * / %; 0: none
};

/// The binary operator a token spells, with its precedence level.
BinaryOp binary_op(TokenKind kind);

/// The value of a literal token (an int as its magnitude); nothing for other tokens.
std::optional<Value> literal_value(const Token& tok);

}  // namespace kpt::cel
