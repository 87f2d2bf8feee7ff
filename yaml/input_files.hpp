#pragma once

#include "util/expected.hpp"

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace kpt::yaml {

/// File access behind an interface (ninja's DiskInterface): the real disk, or memory in tests.
class FileReader {
 public:
  virtual ~FileReader() = default;
  enum class Kind { missing, file, directory, other };
  virtual Kind kind(const std::string& path) = 0;
  /// Reads at most `max_bytes` + 1 bytes so that an oversized file is detected without loading it.
  virtual Expected<std::string> read(const std::string& path, std::size_t max_bytes) = 0;
  /// Every .yaml, .yml and .json file under `dir`, recursively, sorted.
  virtual Expected<std::vector<std::string>> manifests_under(const std::string& dir) = 0;
};

/// The real file system.
std::unique_ptr<FileReader> make_disk_reader();

struct InputFile {
  std::string name;  ///< as the user gave it, "<stdin>" for "-"
  std::shared_ptr<const std::string> text;
  bool too_large = false;  ///< text holds only the first max_bytes
};

/// Expands the command's arguments (files, directories, "-") into inputs, in order.
/// A missing or unreadable path is an Error (exit code 2), named with the path.
Expected<std::vector<InputFile>> collect_inputs(const std::vector<std::string>& args, FileReader& fs,
                                                std::istream& stdin_stream, std::size_t max_bytes);

}  // namespace kpt::yaml
