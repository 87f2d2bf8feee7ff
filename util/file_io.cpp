#include "util/file_io.hpp"

#include <fstream>

namespace kpt::util {

std::optional<std::string> read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return std::nullopt;
  const auto size = in.tellg();
  if (size < 0) return std::nullopt;
  std::string out(static_cast<std::size_t>(size), '\0');
  in.seekg(0);
  in.read(out.data(), static_cast<std::streamsize>(out.size()));
  if (!in) return std::nullopt;
  return out;
}

}  // namespace kpt::util
