#pragma once

#include "yaml/input_files.hpp"

#include <map>
#include <string>
#include <vector>

namespace kpt::yaml {

/// Files in memory, for tests: paths are '/'-separated; a directory exists when a file
/// lies under it or it was added with add_directory(). Records every call in `calls()`
/// ("kind a.yaml", "read a.yaml 100", "list dir") so tests can assert what was asked.
class MemoryFileReader final : public FileReader {
 public:
  void add_file(const std::string& path, std::string content);
  void add_directory(const std::string& path);
  /// Makes read() of `path` fail with `message` (ErrorCode::io), e.g. "Permission denied".
  void fail_read(const std::string& path, std::string message);

  Kind kind(const std::string& path) override;
  Expected<std::string> read(const std::string& path, std::size_t max_bytes) override;
  Expected<std::vector<std::string>> manifests_under(const std::string& dir) override;

  [[nodiscard]] const std::vector<std::string>& calls() const { return m_calls; }

 private:
  [[nodiscard]] bool is_directory(const std::string& path) const;

  std::map<std::string, std::string> m_files;
  std::map<std::string, std::string> m_failures;
  std::vector<std::string> m_dirs;
  std::vector<std::string> m_calls;
};

}  // namespace kpt::yaml
