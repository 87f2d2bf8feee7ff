#pragma once

#include "plugin/exit_codes.hpp"

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace kpt::plugin {

/// Entry point of the binary: parses `argv`, runs one command, returns the exit code.
/// Never throws; a broken invariant is printed as `error: ...` on `err`.
int run(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env, std::istream& in,
        std::ostream& out, std::ostream& err);

}  // namespace kpt::plugin
