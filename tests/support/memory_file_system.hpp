#pragma once

#include "kube/file_system.hpp"

#include <map>
#include <string>

namespace kpt::kube {

/// Files held in a map; records nothing, changes nothing.
class MemoryFileSystem final : public FileSystem {
 public:
  void add(const std::string& path, std::string content) { m_files[path] = std::move(content); }
  Expected<std::string> read(const std::string& path) const override;
  [[nodiscard]] bool is_file(const std::string& path) const override { return m_files.count(path) != 0; }

 private:
  std::map<std::string, std::string> m_files;
};

}  // namespace kpt::kube
