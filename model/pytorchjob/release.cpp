#include "model/pytorchjob/release.hpp"

#include <charconv>

namespace kpt::model::pytorchjob {

std::string Release::to_string() const {
  return "v" + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::optional<Release> parse_release(std::string_view text) {
  constexpr std::string_view prefix = "operator@";
  if (text.substr(0, prefix.size()) == prefix) text.remove_prefix(prefix.size());
  if (!text.empty() && (text.front() == 'v' || text.front() == 'V')) text.remove_prefix(1);
  Release r{};
  int* parts[3] = {&r.major, &r.minor, &r.patch};
  for (int i = 0; i < 3; ++i) {
    const auto* begin = text.data();
    const auto* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(begin, end, *parts[i]);
    if (ec != std::errc()) return std::nullopt;
    text.remove_prefix(static_cast<std::size_t>(ptr - begin));
    if (i < 2) {
      if (text.empty() || text.front() != '.') return std::nullopt;
      text.remove_prefix(1);
    }
  }
  if (!text.empty()) return std::nullopt;
  for (const auto& known : k_releases) {
    if (known == r) return r;
  }
  return std::nullopt;
}

std::string known_releases_list() {
  std::string out;
  for (const auto& r : k_releases) {
    if (!out.empty()) out += ", ";
    out += r.to_string();
  }
  return out;
}

}  // namespace kpt::model::pytorchjob
