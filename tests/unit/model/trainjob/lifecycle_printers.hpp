#pragma once
// Readable GoogleTest output for the lifecycle's value types.

#include <ostream>

#include "model/trainjob/lifecycle.hpp"

namespace kpt::model::trainjob {

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
