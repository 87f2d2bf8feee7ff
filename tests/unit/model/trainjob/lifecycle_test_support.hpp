#pragma once
// Shared by the lifecycle tests: the time they run at, and readable GoogleTest output for the
// lifecycle's value types.

#include "model/trainjob/lifecycle.hpp"

#include <ostream>
#include <string>

namespace kpt::model::trainjob {

namespace testing {
inline const std::string k_t = "2026-11-29T12:00:00Z";
inline const util::Time k_now = *util::parse_time(k_t);
}  // namespace testing

inline void PrintTo(const Condition& c, std::ostream* os) {
  *os << "{" << c.type << " " << c.status << " " << c.reason << " '" << c.message << "' "
      << c.last_transition_time << "}";
}
inline void PrintTo(const Event& e, std::ostream* os) {
  *os << "{" << e.type << " " << e.reason << " '" << e.message << "'}";
}
inline void PrintTo(const ReplicatedJobCounts& c, std::ostream* os) {
  *os << "{" << c.name << " ready=" << c.ready << " succeeded=" << c.succeeded << " failed=" << c.failed
      << " active=" << c.active << " suspended=" << c.suspended << "}";
}
inline void PrintTo(const JobToCreate& j, std::ostream* os) { *os << j.name; }

}  // namespace kpt::model::trainjob
