#include "controller/expectations.hpp"

namespace kpt::controller {

void Expectations::expect(const std::string& key, int creations, int deletions) {
  std::lock_guard lock(m_mutex);
  m_records[key] = {creations, deletions, m_clock.steady_now()};
}

void Expectations::observe_creation(const std::string& key) {
  std::lock_guard lock(m_mutex);
  if (auto it = m_records.find(key); it != m_records.end()) --it->second.creations;
}

void Expectations::observe_deletion(const std::string& key) {
  std::lock_guard lock(m_mutex);
  if (auto it = m_records.find(key); it != m_records.end()) --it->second.deletions;
}

bool Expectations::satisfied(const std::string& key) const {
  std::lock_guard lock(m_mutex);
  const auto it = m_records.find(key);
  if (it == m_records.end()) return true;
  const auto& r = it->second;
  if (r.creations <= 0 && r.deletions <= 0) return true;
  return m_clock.steady_now() - r.at >= m_ttl;
}

void Expectations::forget(const std::string& key) {
  std::lock_guard lock(m_mutex);
  m_records.erase(key);
}

}  // namespace kpt::controller
