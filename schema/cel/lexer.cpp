#include "schema/cel/lexer.hpp"

#include "schema/cel/utf8.hpp"

#include <charconv>
#include <cmath>

namespace kpt::cel {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

int hex_value(char c) {
  if (is_digit(c)) return c - '0';
  return (c | 0x20) - 'a' + 10;
}

class Lexer {
 public:
  explicit Lexer(std::string_view src) : m_src(src) {}

  LexResult run() {
    LexResult out;
    while (!m_error) {
      skip_space_and_comments();
      Token tok;
      tok.offset = static_cast<std::uint32_t>(m_pos);
      if (m_pos >= m_src.size()) {
        out.tokens.push_back(std::move(tok));
        break;
      }
      if (next_token(tok)) out.tokens.push_back(std::move(tok));
    }
    out.error = std::move(m_error);
    return out;
  }

 private:
  [[nodiscard]] char peek(std::size_t ahead = 0) const {
    return m_pos + ahead < m_src.size() ? m_src[m_pos + ahead] : '\0';
  }

  void fail(std::size_t offset, std::string message, CompileErrorKind kind = CompileErrorKind::syntax) {
    if (!m_error) m_error = CompileError{kind, static_cast<std::uint32_t>(offset), std::move(message)};
  }

  void skip_space_and_comments() {
    while (m_pos < m_src.size()) {
      const char c = m_src[m_pos];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        ++m_pos;
      } else if (c == '/' && peek(1) == '/') {
        while (m_pos < m_src.size() && m_src[m_pos] != '\n') ++m_pos;
      } else {
        return;
      }
    }
  }

  bool next_token(Token& tok) {
    const char c = m_src[m_pos];
    if (is_digit(c) || (c == '.' && is_digit(peek(1)))) return number(tok);
    if (c == '\'' || c == '"') return string_literal(tok, false);
    if ((c == 'r' || c == 'R') && (peek(1) == '\'' || peek(1) == '"')) {
      ++m_pos;
      return string_literal(tok, true);
    }
    if (bytes_prefix()) {
      fail(m_pos, "bytes literals", CompileErrorKind::unsupported);
      return false;
    }
    if (is_ident_start(c)) return identifier(tok);
    return punctuation(tok);
  }

  /// b'..', B"..", br'..', rb'..' and the other bytes spellings.
  [[nodiscard]] bool bytes_prefix() const {
    const auto is = [this](std::size_t at, char lower) { return (peek(at) | 0x20) == lower; };
    const auto quote = [this](std::size_t at) { return peek(at) == '\'' || peek(at) == '"'; };
    if (is(0, 'b')) return quote(1) || (is(1, 'r') && quote(2));
    return is(0, 'r') && is(1, 'b') && quote(2);
  }

  bool identifier(Token& tok) {
    const std::size_t start = m_pos;
    while (m_pos < m_src.size() && is_ident_char(m_src[m_pos])) ++m_pos;
    tok.text = std::string(m_src.substr(start, m_pos - start));
    tok.kind = TokenKind::ident;
    if (tok.text == "true") tok.kind = TokenKind::kw_true;
    if (tok.text == "false") tok.kind = TokenKind::kw_false;
    if (tok.text == "null") tok.kind = TokenKind::kw_null;
    if (tok.text == "in") tok.kind = TokenKind::kw_in;
    return true;
  }

  bool number(Token& tok) {
    const std::size_t start = m_pos;
    if (m_src[m_pos] == '0' && (peek(1) == 'x' || peek(1) == 'X') && is_hex(peek(2))) {
      m_pos += 2;
      while (m_pos < m_src.size() && is_hex(m_src[m_pos])) ++m_pos;
      return integer(tok, start, start + 2, 16);
    }
    while (is_digit(peek())) ++m_pos;
    bool real = false;
    if (peek() == '.' && is_digit(peek(1))) {
      real = true;
      ++m_pos;
      while (is_digit(peek())) ++m_pos;
    }
    const std::size_t sign = (peek(1) == '+' || peek(1) == '-') ? 1 : 0;
    if ((peek() == 'e' || peek() == 'E') && is_digit(peek(1 + sign))) {
      real = true;
      m_pos += 1 + sign;
      while (is_digit(peek())) ++m_pos;
    }
    if (!real) return integer(tok, start, start, 10);
    const std::string_view text = m_src.substr(start, m_pos - start);
    const auto res = std::from_chars(text.data(), text.data() + text.size(), tok.real);
    if (res.ec != std::errc() || !std::isfinite(tok.real)) {
      fail(start, "invalid double literal");
      return false;
    }
    tok.kind = TokenKind::double_lit;
    return true;
  }

  bool integer(Token& tok, std::size_t start, std::size_t digits, int base) {
    const bool is_uint = peek() == 'u' || peek() == 'U';
    const auto res = std::from_chars(m_src.data() + digits, m_src.data() + m_pos, tok.number, base);
    const bool in_range = res.ec == std::errc() && (is_uint || tok.number <= (std::uint64_t{1} << 63));
    if (is_uint) ++m_pos;
    if (!in_range) {
      fail(start, is_uint ? "invalid uint literal" : "invalid int literal");
      return false;
    }
    tok.kind = is_uint ? TokenKind::uint_lit : TokenKind::int_lit;
    return true;
  }

  bool string_literal(Token& tok, bool raw) {
    const std::size_t start = m_pos;
    const char quote = m_src[m_pos];
    const bool triple = peek(1) == quote && peek(2) == quote;
    m_pos += triple ? 3 : 1;
    tok.kind = TokenKind::string_lit;
    while (true) {
      if (m_pos >= m_src.size()) {
        fail(start, "unterminated string literal");
        return false;
      }
      const char c = m_src[m_pos];
      if (c == quote && (!triple || (peek(1) == quote && peek(2) == quote))) {
        m_pos += triple ? 3 : 1;
        return true;
      }
      if (!triple && (c == '\n' || c == '\r')) {
        fail(start, "unterminated string literal");
        return false;
      }
      if (c == '\\' && !raw) {
        if (!escape(tok.text)) return false;
        continue;
      }
      tok.text += c;
      ++m_pos;
    }
  }

  /// Decodes one escape sequence at m_pos (the backslash) into `out`.
  bool escape(std::string& out) {
    const std::size_t start = m_pos;
    const char c = peek(1);
    m_pos += 2;
    switch (c) {
      case 'a':
        out += '\a';
        return true;
      case 'b':
        out += '\b';
        return true;
      case 'f':
        out += '\f';
        return true;
      case 'n':
        out += '\n';
        return true;
      case 'r':
        out += '\r';
        return true;
      case 't':
        out += '\t';
        return true;
      case 'v':
        out += '\v';
        return true;
      case '\\':
      case '?':
      case '"':
      case '\'':
      case '`':
        out += c;
        return true;
      case 'x':
      case 'X':
        return code_point(out, start, 2, 16);
      case 'u':
        return code_point(out, start, 4, 16);
      case 'U':
        return code_point(out, start, 8, 16);
      default:
        break;
    }
    if (c >= '0' && c <= '3') {
      --m_pos;
      return code_point(out, start, 3, 8);
    }
    fail(start, "invalid escape sequence");
    return false;
  }

  bool code_point(std::string& out, std::size_t start, int digits, int base) {
    char32_t value = 0;
    for (int i = 0; i < digits; ++i) {
      const char d = peek();
      const bool ok = base == 16 ? is_hex(d) : (d >= '0' && d <= '7');
      if (!ok) {
        fail(start, "invalid escape sequence");
        return false;
      }
      value = value * static_cast<char32_t>(base) + static_cast<char32_t>(hex_value(d));
      ++m_pos;
    }
    if (!utf8::is_scalar(value)) {
      fail(start, "invalid unicode code point in escape sequence");
      return false;
    }
    utf8::append(out, value);
    return true;
  }

  bool punctuation(Token& tok) {
    struct Spelling {
      std::string_view text;
      TokenKind kind;
    };
    static constexpr Spelling k_ops[] = {
        {"==", TokenKind::eq},      {"!=", TokenKind::ne},          {"<=", TokenKind::le},
        {">=", TokenKind::ge},      {"&&", TokenKind::logical_and}, {"||", TokenKind::logical_or},
        {"(", TokenKind::lparen},   {")", TokenKind::rparen},       {"[", TokenKind::lbracket},
        {"]", TokenKind::rbracket}, {"{", TokenKind::lbrace},       {"}", TokenKind::rbrace},
        {".", TokenKind::dot},      {",", TokenKind::comma},        {":", TokenKind::colon},
        {"?", TokenKind::question}, {"+", TokenKind::plus},         {"-", TokenKind::minus},
        {"*", TokenKind::star},     {"/", TokenKind::slash},        {"%", TokenKind::percent},
        {"<", TokenKind::lt},       {">", TokenKind::gt},           {"!", TokenKind::logical_not},
    };
    for (const auto& op : k_ops) {
      if (m_src.substr(m_pos, op.text.size()) == op.text) {
        tok.kind = op.kind;
        m_pos += op.text.size();
        return true;
      }
    }
    if (m_src[m_pos] == '`') {
      fail(m_pos, "quoted field names", CompileErrorKind::unsupported);
      return false;
    }
    std::size_t end = m_pos;
    utf8::decode(m_src, end);
    fail(m_pos, "unexpected character '" + std::string(m_src.substr(m_pos, end - m_pos)) + "'");
    return false;
  }

  std::string_view m_src;
  std::size_t m_pos = 0;
  std::optional<CompileError> m_error;
};

}  // namespace

LexResult lex(std::string_view source) { return Lexer(source).run(); }

}  // namespace kpt::cel
