#pragma once

#include "util/clock.hpp"

#include <chrono>
#include <map>
#include <mutex>
#include <string>

namespace kpt::controller {

/// Creations and deletions a job's last pass asked for and the informer has not shown yet
/// (controller-runtime's expectations). While unsatisfied, a pass reading from a cache would
/// act on stale data; a record older than the TTL (5 min) counts as satisfied, so a lost watch
/// event cannot block a job forever. Thread-safe; time comes from the injected Clock.
class Expectations {
 public:
  explicit Expectations(const util::Clock& clock, std::chrono::seconds ttl = std::chrono::minutes{5})
      : m_clock(clock), m_ttl(ttl) {}

  void expect(const std::string& key, int creations, int deletions);
  void observe_creation(const std::string& key);
  void observe_deletion(const std::string& key);
  [[nodiscard]] bool satisfied(const std::string& key) const;
  void forget(const std::string& key);

 private:
  struct Record {
    int creations = 0;
    int deletions = 0;
    std::chrono::steady_clock::time_point at;
  };
  const util::Clock& m_clock;
  std::chrono::seconds m_ttl;
  mutable std::mutex m_mutex;
  std::map<std::string, Record> m_records;
};

}  // namespace kpt::controller
