#include "kube/file_system.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace kpt::kube {

Expected<std::string> RealFileSystem::read(const std::string& path) const {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int e = errno;
    return make_error(e == ENOENT ? ErrorCode::not_found : ErrorCode::io,
                      "open " + path + ": " + (e == ENOENT ? "no such file or directory" : std::strerror(e)));
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool RealFileSystem::is_file(const std::string& path) const {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

Expected<std::string> MemoryFileSystem::read(const std::string& path) const {
  auto it = m_files.find(path);
  if (it == m_files.end()) return make_error(ErrorCode::not_found, "open " + path + ": no such file or directory");
  return it->second;
}

std::string dir_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string resolve_path(const std::string& base_dir, const std::string& path) {
  if (path.empty() || path.front() == '/') return path;
  if (base_dir.empty() || base_dir == ".") return path;
  return base_dir + "/" + path;
}

}  // namespace kpt::kube
