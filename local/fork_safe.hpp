#pragma once

#include <cstddef>

namespace kpt::local::fork_safe {

// Helpers for the code that runs between fork() and exec() of the node (a threaded process):
// async-signal-safe, no allocation.

/// Writes `text` to the file at `path` (a /proc control file); true when all of it was taken.
bool write_text(const char* path, const char* text);

/// Closes every descriptor but those in `keep` (-1 entries are ignored; `keep` is reordered).
void close_all_but(int* keep, std::size_t n);

/// Marks every descriptor from 3 on close-on-exec.
void cloexec_from_3();

}  // namespace kpt::local::fork_safe
