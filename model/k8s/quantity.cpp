#include "model/k8s/quantity.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

namespace kpt::model::k8s {

namespace {

constexpr std::size_t k_max_valued_length = 64;
constexpr std::int64_t k_max = std::numeric_limits<std::int64_t>::max();

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// A quantity split as the CRD pattern reads it: sign, the digits before and after the point, and
/// the suffix (empty, `Ki`..`Ei`, one of `numkMGTPE`, or an exponent `e<number>`).
struct Scanned {
  bool negative = false;
  std::string_view integer;
  std::string_view fraction;
  std::string_view suffix;
};

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

bool valid_suffix(std::string_view rest) {
  if (rest.empty()) return true;
  if (rest.size() == 2 && is_binary_prefix(rest[0]) && rest[1] == 'i') return true;
  if (rest.size() == 1 && is_decimal_suffix(rest[0])) return true;
  if (rest[0] != 'e' && rest[0] != 'E') return false;
  return match_number(rest, skip_sign(rest, 1)) == rest.size();
}

std::optional<Scanned> scan(std::string_view text) {
  const std::size_t start = skip_sign(text, 0);
  const std::size_t end = match_number(text, start);
  if (end == std::string_view::npos || !valid_suffix(text.substr(end))) return std::nullopt;
  Scanned out;
  out.negative = start > 0 && text[0] == '-';
  const std::string_view number = text.substr(start, end - start);
  const std::size_t point = number.find('.');
  out.integer = number.substr(0, point);
  if (point != std::string_view::npos) out.fraction = number.substr(point + 1);
  out.suffix = text.substr(end);
  return out;
}

/// The power of ten and of two a suffix scales by; nothing for a fractional or huge exponent.
struct Scale {
  int dec = 0;
  int bin = 0;
};

std::optional<Scale> integer_scale(std::string_view suffix) {
  if (suffix.empty()) return Scale{};
  if (suffix.size() == 2 && suffix[1] == 'i') {
    return Scale{0, 10 * static_cast<int>(std::string_view("KMGTPE").find(suffix[0]) + 1)};
  }
  switch (suffix.size() == 1 ? suffix[0] : 'e') {
    case 'n':
      return Scale{-9, 0};
    case 'u':
      return Scale{-6, 0};
    case 'm':
      return Scale{-3, 0};
    case 'k':
      return Scale{3, 0};
    case 'M':
      return Scale{6, 0};
    case 'G':
      return Scale{9, 0};
    case 'T':
      return Scale{12, 0};
    case 'P':
      return Scale{15, 0};
    case 'E':
      if (suffix.size() == 1) return Scale{18, 0};
      break;
    default:
      break;
  }
  std::string_view digits = suffix.substr(1);
  if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
  int exponent = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), exponent);
  if (ec != std::errc() || end != digits.data() + digits.size() || exponent > 100 || exponent < -100) {
    return std::nullopt;
  }
  return Scale{exponent, 0};
}

double double_factor(std::string_view suffix) {
  if (const auto scale = integer_scale(suffix)) {
    return std::pow(10.0, scale->dec) * std::pow(2.0, scale->bin);
  }
  return std::pow(10.0, std::strtod(std::string(suffix.substr(1)).c_str(), nullptr));
}

/// a * b with saturation at k_max (both non-negative).
std::int64_t mul_sat(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  return __builtin_mul_overflow(a, b, &out) ? k_max : out;
}

/// |value| rounded up, or down when `floor` (so negative values round toward +infinity).
std::int64_t magnitude(const Scanned& q, Scale scale, bool floor) {
  std::int64_t n = 0;
  // Digits past int64 range only scale the value: each one left unread is a power of ten.
  int dec = scale.dec - static_cast<int>(q.fraction.size());
  for (const std::string_view part : {q.integer, q.fraction}) {
    for (const char c : part) {
      if (n > (k_max - 9) / 10) {
        ++dec;
        continue;
      }
      n = n * 10 + (c - '0');
    }
  }
  n = mul_sat(n, std::int64_t{1} << std::min(scale.bin, 62));
  for (; dec > 0; --dec) n = mul_sat(n, 10);
  if (dec == 0) return n;
  std::int64_t divisor = 1;
  for (; dec < 0 && divisor <= k_max / 10; ++dec) divisor *= 10;
  if (dec < 0) return floor || n == 0 ? 0 : 1;  // 10^-dec exceeds any int64 numerator
  const std::int64_t whole = n / divisor;
  return (!floor && n % divisor != 0) ? whole + 1 : whole;
}

}  // namespace

bool is_valid_quantity(std::string_view text) { return scan(text).has_value(); }

std::optional<double> quantity_base_units(std::string_view text) {
  if (text.size() > k_max_valued_length) return std::nullopt;
  const auto q = scan(text);
  if (!q) return std::nullopt;
  const std::string number = std::string(q->integer) + "." + std::string(q->fraction);
  const double value = std::strtod(number.c_str(), nullptr) * double_factor(q->suffix);
  return q->negative ? -value : value;
}

std::optional<std::int64_t> quantity_value(std::string_view text) {
  if (text.size() > k_max_valued_length) return std::nullopt;
  const auto q = scan(text);
  if (!q) return std::nullopt;
  const auto scale = integer_scale(q->suffix);
  if (!scale) return std::nullopt;
  // Value() rounds toward positive infinity: -1.5 -> -1.
  const std::int64_t m = magnitude(*q, *scale, q->negative);
  return q->negative ? -m : m;
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

}  // namespace kpt::model::k8s
