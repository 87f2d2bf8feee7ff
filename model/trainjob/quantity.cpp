#include "model/trainjob/quantity.hpp"

#include <nlohmann/json.hpp>

#include <cctype>
#include <charconv>
#include <limits>
#include <string>

namespace kpt::model::trainjob {

namespace {

constexpr std::int64_t k_max = std::numeric_limits<std::int64_t>::max();

/// value = digits x 10^dec_exp x 2^bin_exp, kept exact until the final rounding.
struct Parsed {
  bool negative = false;
  std::string digits;  ///< without leading zeros; empty means zero
  int dec_exp = 0;
  int bin_exp = 0;
};

bool parse_suffix(std::string_view s, Parsed& p) {
  if (s.empty()) return true;
  static constexpr struct {
    std::string_view name;
    int dec;
    int bin;
  } k_suffixes[] = {{"n", -9, 0},  {"u", -6, 0},  {"m", -3, 0},  {"k", 3, 0},   {"M", 6, 0},
                    {"G", 9, 0},   {"T", 12, 0},  {"P", 15, 0},  {"E", 18, 0},  {"Ki", 0, 10},
                    {"Mi", 0, 20}, {"Gi", 0, 30}, {"Ti", 0, 40}, {"Pi", 0, 50}, {"Ei", 0, 60}};
  for (const auto& suffix : k_suffixes) {
    if (s == suffix.name) {
      p.dec_exp += suffix.dec;
      p.bin_exp += suffix.bin;
      return true;
    }
  }
  if (s[0] != 'e' && s[0] != 'E') return false;
  int exponent = 0;
  std::string_view digits = s.substr(1);
  if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), exponent);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || exponent > 100 ||
      exponent < -100) {
    return false;
  }
  p.dec_exp += exponent;
  return true;
}

std::optional<Parsed> parse(std::string_view s) {
  if (s.empty() || s.size() > 64) return std::nullopt;
  Parsed p;
  std::size_t i = 0;
  if (s[i] == '+' || s[i] == '-') p.negative = s[i++] == '-';
  bool any_digit = false;
  bool after_point = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.' && !after_point) {
      after_point = true;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) == 0) break;
    any_digit = true;
    if (!(p.digits.empty() && c == '0')) p.digits += c;
    if (after_point) --p.dec_exp;
  }
  if (!any_digit || !parse_suffix(s.substr(i), p)) return std::nullopt;
  return p;
}

/// a * b with saturation at k_max (both non-negative).
std::int64_t mul_sat(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  return __builtin_mul_overflow(a, b, &out) ? k_max : out;
}

/// ceil(|value|) for a positive value, or floor(|value|) when `floor` (negative values round up too).
std::int64_t magnitude(const Parsed& p, bool floor) {
  std::int64_t n = 0;
  int dec = p.dec_exp;
  for (const char c : p.digits) {
    if (n > k_max / 10) {  // the rest of the digits only scale an already saturated value
      n = k_max;
      break;
    }
    n = n * 10 + (c - '0');
  }
  n = mul_sat(n, std::int64_t{1} << std::min(p.bin_exp, 62));
  for (; dec > 0; --dec) n = mul_sat(n, 10);
  if (dec == 0) return n;
  std::int64_t divisor = 1;
  for (; dec < 0 && divisor <= k_max / 10; ++dec) divisor *= 10;
  if (dec < 0) return floor || n == 0 ? 0 : 1;  // 10^-dec exceeds any int64 numerator
  const std::int64_t q = n / divisor;
  return (!floor && n % divisor != 0) ? q + 1 : q;
}

}  // namespace

std::optional<std::int64_t> quantity_value(std::string_view text) {
  const auto parsed = parse(text);
  if (!parsed) return std::nullopt;
  if (parsed->digits.empty()) return 0;
  // Value() rounds toward positive infinity: -1.5 -> -1.
  const std::int64_t m = magnitude(*parsed, parsed->negative);
  return parsed->negative ? -m : m;
}

std::optional<std::int64_t> json_quantity_value(const nlohmann::json& value) {
  if (value.is_string()) return quantity_value(std::string_view(value.get_ref<const std::string&>()));
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (value.is_number_float()) {
    // YAML `cpu: 0.5`: go through the text so rounding matches a quoted quantity.
    return quantity_value(std::string_view(value.dump()));
  }
  return std::nullopt;
}

}  // namespace kpt::model::trainjob
