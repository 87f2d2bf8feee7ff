#include "kube/file_system.hpp"

#include "util/file_io.hpp"

#include <sys/stat.h>

#include <cctype>

namespace kpt::kube {

Expected<std::string> RealFileSystem::read(const std::string& path) const {
  auto text = util::read_file(path);
  if (text) return text;
  // kubectl's (Go's) spelling: "open /x: no such file or directory".
  std::string reason = text.error().message;
  if (!reason.empty()) reason[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(reason[0])));
  return make_error(text.error().code, "open " + path + ": " + reason);
}

bool RealFileSystem::is_file(const std::string& path) const {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
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
