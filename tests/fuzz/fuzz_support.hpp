#pragma once

// Helpers the fuzz targets share: input splitting, a check that aborts (so libFuzzer and the
// replay driver both report it), and a full dump of a reader result for comparisons.
#include "util/diagnostic.hpp"
#include "yaml/manifest_reader.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace kpt::fuzz {

/// Every target ignores inputs past this size, so a run's memory and time per input stay bounded
/// (libFuzzer's -max_len is set lower in CI; this holds for corpus replays too).
inline constexpr std::size_t k_max_input = 256 * 1024;

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// `in` cut at the first `separator`: (before, after); (in, "") when it does not occur.
std::pair<std::string_view, std::string_view> split_once(std::string_view in, std::string_view separator);

/// Prints `what` and `detail` to stderr and aborts: a property of the code under test broke.
[[noreturn]] void fail(std::string_view what, std::string_view detail = {});

/// A finding as one line: file:line:col [rule] path: message | hint.
std::string describe(const Diagnostic& d);

/// Everything a reader result holds (findings, documents, every node with its position), one
/// line per node, for comparing two readers.
std::string dump(const yaml::ReadResult& result);

}  // namespace kpt::fuzz
