#pragma once

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace kpt::plugin {

/// Documented exit codes (README "Exit codes", `--help`).
namespace exit_code {
inline constexpr int ok = 0;
inline constexpr int findings = 1;   ///< validate: findings of error severity; other commands: failure
inline constexpr int usage = 2;      ///< usage or I/O error
inline constexpr int timeout = 124;  ///< run --timeout reached
inline constexpr int interrupted = 130;
}  // namespace exit_code

/// Entry point of the binary: parses `argv`, runs one command, returns the exit code.
/// Never throws; a broken invariant is printed as `error: ...` on `err`.
int run(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env, std::istream& in,
        std::ostream& out, std::ostream& err);

}  // namespace kpt::plugin
