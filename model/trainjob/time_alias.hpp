#pragma once

// RFC 3339 time at second resolution, from the shared helpers.

#include "controller/model/lifecycle_time.hpp"

namespace kpt::model::trainjob {
using kpt::model::format_time;
using kpt::model::parse_time;
using kpt::model::Time;
}  // namespace kpt::model::trainjob
