#include "tests/differential/mutate.hpp"

#include "util/file_io.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <sstream>

namespace kpt::differential {
namespace {

constexpr std::array<const char*, 40> k_tokens = {": ",     "- ",
                                                  "-",      ":",
                                                  "#",      "'",
                                                  "\"",     "[",
                                                  "]",      "{",
                                                  "}",      ",",
                                                  "&a ",    "*a",
                                                  "<<: ",   "!!str ",
                                                  "!!int ", "? ",
                                                  "|",      ">",
                                                  "\n",     "\n  ",
                                                  "  ",     "\t",
                                                  "---\n",  "...\n",
                                                  "~",      "null",
                                                  "yes",    "0x1F",
                                                  "017",    "1e3",
                                                  ".5",     "9223372036854775808",
                                                  "1_000",  "-.inf",
                                                  "\\",     "%",
                                                  "@",      "\xc3\xa9"};

std::size_t pick(std::mt19937_64& rng, std::size_t n) { return n == 0 ? 0 : rng() % n; }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

std::string edit_once(std::string text, std::mt19937_64& rng) {
  switch (rng() % 6) {
    case 0:  // insert a token
      return text.insert(pick(rng, text.size() + 1), k_tokens[pick(rng, k_tokens.size())]);
    case 1:  // drop a few characters
      if (!text.empty()) text.erase(pick(rng, text.size()), 1 + rng() % 5);
      return text;
    case 2: {  // repeat a line
      auto lines = lines_of(text);
      if (lines.empty()) return text;
      const auto at = pick(rng, lines.size());
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), lines[at]);
      return joined(lines);
    }
    case 3: {  // swap two lines
      auto lines = lines_of(text);
      if (lines.size() < 2) return text;
      std::swap(lines[pick(rng, lines.size())], lines[pick(rng, lines.size())]);
      return joined(lines);
    }
    case 4: {  // re-indent a line
      auto lines = lines_of(text);
      if (lines.empty()) return text;
      auto& line = lines[pick(rng, lines.size())];
      if (rng() % 2 == 0 && !line.empty() && line.front() == ' ') {
        line.erase(0, 1 + rng() % 2);
      } else {
        line.insert(0, 1 + rng() % 2, ' ');
      }
      return joined(lines);
    }
    default: {  // overwrite a character with another printable one
      if (!text.empty()) text[pick(rng, text.size())] = static_cast<char>(' ' + rng() % 95);
      return text;
    }
  }
}

}  // namespace

std::string mutate(const std::string& text, std::mt19937_64& rng) {
  std::string out = text;
  const int edits = 1 + static_cast<int>(rng() % 3);
  for (int i = 0; i < edits; ++i) out = edit_once(std::move(out), rng);
  return out;
}

std::uint64_t run_seed() {
  if (const char* s = std::getenv("KPT_DIFF_SEED"); s != nullptr && *s != '\0')
    return std::strtoull(s, nullptr, 10);
  return 20261201;
}

int mutations_per_input(int fallback) {
  if (const char* s = std::getenv("KPT_DIFF_MUTATIONS"); s != nullptr && *s != '\0') return std::atoi(s);
  return fallback;
}

std::vector<std::filesystem::path> fixtures_under(const std::filesystem::path& dir, std::size_t max_bytes) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    const auto ext = e.path().extension().string();
    if (!e.is_regular_file() || e.file_size() > max_bytes) continue;
    if (ext == ".yaml" || ext == ".yml" || ext == ".json") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string read_text(const std::filesystem::path& path) {
  auto text = util::read_file(path.string());
  return text ? std::move(*text) : std::string();
}

}  // namespace kpt::differential
