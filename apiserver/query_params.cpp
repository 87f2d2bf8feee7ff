#include "apiserver/query_params.hpp"

#include "apiserver/status.hpp"

#include <limits>

namespace kpt::apiserver {

Expected<std::int64_t> parse_go_int64(std::string_view text) {
  const auto failed = [&](const char* why) {
    return bad_request("strconv.ParseInt: parsing \"" + std::string(text) + "\": " + why);
  };
  std::string_view digits = text;
  bool negative = false;
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) {
    negative = digits.front() == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty()) return failed("invalid syntax");
  // Accumulated as a negative number, whose range holds the most negative int64.
  std::int64_t value = 0;
  bool overflow = false;
  for (const char c : digits) {
    if (c < '0' || c > '9') return failed("invalid syntax");
    const int d = c - '0';
    if (value < (std::numeric_limits<std::int64_t>::min() + d) / 10) overflow = true;
    if (!overflow) value = value * 10 - d;
  }
  if (overflow || (!negative && value == std::numeric_limits<std::int64_t>::min()))
    return failed("value out of range");
  return negative ? value : -value;
}

Expected<std::optional<std::int64_t>> int64_param(const HttpRequest& request, const std::string& name) {
  if (!request.has_param(name)) return std::optional<std::int64_t>();
  auto value = parse_go_int64(request.param(name));
  if (!value) return value.error();
  return std::optional<std::int64_t>(*value);
}

}  // namespace kpt::apiserver
