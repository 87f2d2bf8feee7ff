#pragma once

#include "util/expected.hpp"

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>

namespace kpt::util {

/// Reads `path` whole, or its first `max_bytes` + 1 bytes, so that a caller with a limit learns
/// that the file is larger without loading all of it. One open, one fstat, reads straight into
/// the string. Errors carry the system's reason only ("No such file or directory"), with code
/// not_found for a missing file and io otherwise; the caller adds the path and what it was
/// doing, e.g. `.context("reading 'job.yaml'")`.
Expected<std::string> read_file(const std::string& path,
                                std::size_t max_bytes = std::numeric_limits<std::size_t>::max() - 1);

/// Writes `text` to `path` so that a reader sees the old file or the new one, never half of one: a
/// sibling `path.tmp` created with `mode` (close-on-exec), written whole, then renamed over `path`.
/// The error names the file and the system's reason ("writing 'x': Permission denied").
Expected<void> write_file_atomically(const std::string& path, std::string_view text, unsigned mode = 0644);

}  // namespace kpt::util
