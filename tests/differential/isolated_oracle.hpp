#pragma once

// yaml-cpp 0.7 (Debian 12) loops forever on some malformed inputs (a plain "," as a block
// mapping key, for one), so mutated inputs are parsed by the oracle in a child process that is
// killed past a deadline. The result crosses the pipe as CBOR, which keeps NaN, infinities and
// unsigned integers as they are.
#include "tests/differential/goyaml_oracle.hpp"

#include <chrono>
#include <string>

namespace kpt::differential {

/// The reason given when yaml-cpp did not finish within the deadline.
inline constexpr const char* k_oracle_hung = "yaml-cpp did not finish";

/// oracle_parse(text) in a forked child; error k_oracle_hung when it runs past `deadline`.
OracleResult oracle_parse_isolated(const std::string& text, std::chrono::milliseconds deadline);

}  // namespace kpt::differential
