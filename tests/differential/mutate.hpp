#pragma once

// Seeded text mutations for the differential tests: small edits of the kind a person or a bad
// generator makes (a token inserted, characters dropped, a line repeated, moved or re-indented).
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace kpt::differential {

/// One to three random edits of `text`.
std::string mutate(const std::string& text, std::mt19937_64& rng);

/// The seed for this run: KPT_DIFF_SEED when set, else a fixed one; printed by the tests so that
/// a failure replays.
std::uint64_t run_seed();

/// How many mutations per input: KPT_DIFF_MUTATIONS when set, else `fallback`.
int mutations_per_input(int fallback);

/// Every .yaml, .yml and .json file under `dir` (recursively) smaller than `max_bytes`, sorted.
std::vector<std::filesystem::path> fixtures_under(const std::filesystem::path& dir, std::size_t max_bytes);

std::string read_text(const std::filesystem::path& path);

}  // namespace kpt::differential
