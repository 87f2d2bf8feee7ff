#pragma once

#include "util/expected.hpp"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace kpt::plugin {

/// Which log lines `logs` prints, as stern's --include and --exclude say: a line is printed when
/// it matches one of `includes` (any line when there are none) and none of `excludes`. Patterns
/// are RE2 syntax, as Go's regexp (stern's) reads them, matched in linear time whatever the
/// pattern. An empty function when there are no patterns.
Expected<std::function<bool(std::string_view)>> make_line_filter(const std::vector<std::string>& includes,
                                                                 const std::vector<std::string>& excludes);

}  // namespace kpt::plugin
