// The driver fuzz targets link when libFuzzer is not there (gcc builds): it runs
// LLVMFuzzerTestOneInput once on every file named, or under every folder named, so the seed
// corpora and the inputs of past findings replay as ordinary ctest entries.
#include "util/file_io.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::vector<std::filesystem::path> inputs_under(const std::filesystem::path& arg) {
  std::vector<std::filesystem::path> out;
  if (std::filesystem::is_directory(arg)) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(arg))
      if (e.is_regular_file()) out.push_back(e.path());
  } else {
    out.push_back(arg);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    if (!std::filesystem::exists(argv[i])) {
      std::fprintf(stderr, "replay: no such file or folder '%s'\n", argv[i]);
      return 2;
    }
    for (const auto& path : inputs_under(argv[i])) {
      auto read = kpt::util::read_file(path.string());
      if (!read) {
        std::fprintf(stderr, "replay: %s\n", read.error().message.c_str());
        return 2;
      }
      const std::string& bytes = *read;
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++replayed;
    }
  }
  std::printf("replayed %zu inputs\n", replayed);
  return replayed > 0 ? 0 : 1;
}
