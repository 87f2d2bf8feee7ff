#include "util/time.hpp"

#include "util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>

namespace kpt::util {

std::string format_time(Time t) {
  const auto day = std::chrono::floor<std::chrono::days>(t);
  const std::chrono::year_month_day ymd{day};
  const std::chrono::hh_mm_ss hms{t - day};
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02ld:%02ld:%02ldZ", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<long>(hms.hours().count()), static_cast<long>(hms.minutes().count()),
                static_cast<long>(hms.seconds().count()));
  return buf;
}

std::string now_rfc3339() {
  return format_time(std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
}

namespace {
bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (std::isdigit(static_cast<unsigned char>(s[i])) == 0) return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}
}  // namespace

std::optional<Time> parse_time(std::string_view s) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
  if (!digits(s, 0, 4, y) || s.size() < 20 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't') || !digits(s, 11, 2, h) || s[13] != ':' ||
      !digits(s, 14, 2, mi) || s[16] != ':' || !digits(s, 17, 2, se)) {
    return std::nullopt;
  }
  std::size_t pos = 19;
  if (s[pos] == '.') {
    ++pos;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])) != 0) ++pos;
  }
  int offset_minutes = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh = 0, om = 0;
    if (!digits(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !digits(s, pos + 4, 2, om)) {
      return std::nullopt;
    }
    offset_minutes = (s[pos] == '-' ? -1 : 1) * (oh * 60 + om);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  const std::chrono::year_month_day ymd{std::chrono::year{y}, std::chrono::month{static_cast<unsigned>(mo)},
                                        std::chrono::day{static_cast<unsigned>(d)}};
  if (!ymd.ok() || h > 23 || mi > 59 || se > 60) return std::nullopt;
  return Time{std::chrono::sys_days{ymd}} + std::chrono::hours{h} + std::chrono::minutes{mi} +
         std::chrono::seconds{se} - std::chrono::minutes{offset_minutes};
}

std::optional<long long> parse_duration_ms(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  long long total = 0;
  bool any = false;
  while (!text.empty()) {
    double value = 0;
    const auto* begin = text.data();
    const auto* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || value < 0) return std::nullopt;
    text.remove_prefix(static_cast<std::size_t>(ptr - begin));
    double unit_ms = 1000;  // a bare number means seconds, as kubectl's --timeout accepts
    if (starts_with(text, "ms")) {
      unit_ms = 1;
      text.remove_prefix(2);
    } else if (starts_with(text, "s")) {
      unit_ms = 1000;
      text.remove_prefix(1);
    } else if (starts_with(text, "m")) {
      unit_ms = 60'000;
      text.remove_prefix(1);
    } else if (starts_with(text, "h")) {
      unit_ms = 3'600'000;
      text.remove_prefix(1);
    } else if (!text.empty())
      return std::nullopt;
    else if (any)
      return std::nullopt;  // "1m30" is not a duration
    const double ms = value * unit_ms;
    if (ms > 9.0e15) return std::nullopt;
    total += static_cast<long long>(ms);
    any = true;
  }
  return total;
}

std::string format_age(std::chrono::seconds age) {
  const long long s = std::max<long long>(0, age.count());
  const long long m = s / 60, h = s / 3600, d = s / 86400, y = d / 365;
  auto two = [](long long a, const char* ua, long long b, const char* ub) {
    return std::to_string(a) + ua + (b == 0 ? std::string() : std::to_string(b) + ub);
  };
  if (s < 120) return std::to_string(s) + "s";
  if (m < 10) return two(m, "m", s % 60, "s");
  if (m < 180) return std::to_string(m) + "m";
  if (h < 8) return two(h, "h", m % 60, "m");
  if (h < 48) return std::to_string(h) + "h";
  if (h < 24 * 8) return two(d, "d", h % 24, "h");
  if (h < 24 * 365 * 2) return std::to_string(d) + "d";
  if (y < 8) return two(y, "y", d % 365, "d");
  return std::to_string(y) + "y";
}

}  // namespace kpt::util
