#include "schema/quantity.hpp"

#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <string>

namespace kpt::schema {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// Matches `([0-9]+(\.[0-9]*)?)|(\.[0-9]+)` at `pos`; returns the end, or npos.
std::size_t match_number(std::string_view text, std::size_t pos) {
  std::size_t i = pos;
  while (i < text.size() && is_digit(text[i])) ++i;
  const bool int_digits = i > pos;
  if (i < text.size() && text[i] == '.') {
    const std::size_t frac_start = ++i;
    while (i < text.size() && is_digit(text[i])) ++i;
    if (!int_digits && i == frac_start) return std::string_view::npos;
    return i;
  }
  return int_digits ? i : std::string_view::npos;
}

std::size_t skip_sign(std::string_view text, std::size_t pos) {
  return pos < text.size() && (text[pos] == '+' || text[pos] == '-') ? pos + 1 : pos;
}

bool is_binary_prefix(char c) { return std::string_view("KMGTPE").find(c) != std::string_view::npos; }
bool is_decimal_suffix(char c) { return std::string_view("numkMGTPE").find(c) != std::string_view::npos; }

/// The suffix that follows the number: empty, `Xi`, one decimal letter or an exponent.
bool valid_suffix(std::string_view rest) {
  if (rest.empty()) return true;
  if (rest.size() == 2 && is_binary_prefix(rest[0]) && rest[1] == 'i') return true;
  if (rest.size() == 1 && is_decimal_suffix(rest[0])) return true;
  if (rest[0] != 'e' && rest[0] != 'E') return false;
  const std::size_t start = skip_sign(rest, 1);
  return match_number(rest, start) == rest.size();
}

double suffix_factor(std::string_view suffix) {
  if (suffix.empty()) return 1;
  if (suffix.size() == 2 && suffix[1] == 'i') {
    const auto power = std::string_view("KMGTPE").find(suffix[0]) + 1;
    return std::pow(1024.0, static_cast<double>(power));
  }
  if (suffix.size() == 1) {
    switch (suffix[0]) {
      case 'n':
        return 1e-9;
      case 'u':
        return 1e-6;
      case 'm':
        return 1e-3;
      case 'k':
        return 1e3;
      case 'M':
        return 1e6;
      case 'G':
        return 1e9;
      case 'T':
        return 1e12;
      case 'P':
        return 1e15;
      case 'E':
        return 1e18;
      default:
        break;
    }
  }
  return std::pow(10.0, std::strtod(std::string(suffix.substr(1)).c_str(), nullptr));
}

}  // namespace

bool is_valid_quantity(std::string_view text) {
  const std::size_t end = match_number(text, skip_sign(text, 0));
  return end != std::string_view::npos && valid_suffix(text.substr(end));
}

std::optional<double> quantity_value(std::string_view text) {
  if (!is_valid_quantity(text)) return std::nullopt;
  const std::size_t end = match_number(text, skip_sign(text, 0));
  if (end > 64) return std::nullopt;  // a hostile 50,000-digit value has no useful size
  const double number = std::strtod(std::string(text.substr(0, end)).c_str(), nullptr);
  const std::string_view suffix = text.substr(end);
  if (suffix.size() > 32) return std::nullopt;
  return number * suffix_factor(suffix);
}

}  // namespace kpt::schema
