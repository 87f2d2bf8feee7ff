#include "local/log_clock.hpp"

#include "util/time.hpp"

#include <algorithm>
#include <cstdio>

namespace kpt::local {

void LogClock::sample(const std::string& file, std::size_t size, Time now) {
  std::lock_guard lock(m_mutex);
  auto& samples = m_samples[file];
  if (!samples.empty() && samples.back().first >= size) return;
  samples.emplace_back(size, now);
  if (samples.size() > k_max_samples) samples.pop_front();
}

LogClock::Time LogClock::time_of(const std::string& file, std::size_t end_offset, Time fallback) const {
  std::lock_guard lock(m_mutex);
  const auto it = m_samples.find(file);
  if (it == m_samples.end() || it->second.empty()) return fallback;
  const auto& samples = it->second;
  const auto at = std::lower_bound(samples.begin(), samples.end(), end_offset,
                                   [](const auto& s, std::size_t offset) { return s.first < offset; });
  return at == samples.end() ? fallback : at->second;
}

void LogClock::forget(const std::string& file) {
  std::lock_guard lock(m_mutex);
  m_samples.erase(file);
}

std::string LogClock::stamp(const std::string& file, std::size_t start_offset, std::string_view text,
                            Time fallback) const {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto nl = text.find('\n', start);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    out += rfc3339_nano(time_of(file, start_offset + end, fallback)) + " ";
    out.append(text.substr(start, end - start));
    start = end;
  }
  return out;
}

std::string rfc3339_nano(LogClock::Time t) {
  const auto seconds = std::chrono::floor<std::chrono::seconds>(t);
  const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(t - seconds).count();
  std::string whole = util::format_time(seconds);  // ...SSZ
  char fraction[16];
  std::snprintf(fraction, sizeof fraction, ".%09lld", static_cast<long long>(nanos));
  whole.insert(whole.size() - 1, fraction);
  return whole;
}

}  // namespace kpt::local
