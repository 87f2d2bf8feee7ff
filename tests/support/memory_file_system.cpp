#include "tests/support/memory_file_system.hpp"

namespace kpt::kube {

Expected<std::string> MemoryFileSystem::read(const std::string& path) const {
  auto it = m_files.find(path);
  if (it == m_files.end())
    return make_error(ErrorCode::not_found, "open " + path + ": no such file or directory");
  return it->second;
}

}  // namespace kpt::kube
