#include "tests/support/memory_file_reader.hpp"

#include "yaml/manifest_extensions.hpp"

#include <algorithm>
#include <cstring>

namespace kpt::yaml {
namespace {

std::string strip_slash(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

}  // namespace

void MemoryFileReader::add_file(const std::string& path, std::string content) {
  m_files[path] = std::move(content);
}

void MemoryFileReader::add_directory(const std::string& path) { m_dirs.push_back(strip_slash(path)); }

void MemoryFileReader::fail_read(const std::string& path, std::string message) {
  m_failures[path] = std::move(message);
}

bool MemoryFileReader::is_directory(const std::string& path) const {
  const auto dir = strip_slash(path);
  if (std::find(m_dirs.begin(), m_dirs.end(), dir) != m_dirs.end()) return true;
  const auto prefix = dir + "/";
  const auto under = [&](const auto& f) { return f.first.compare(0, prefix.size(), prefix) == 0; };
  return std::any_of(m_files.begin(), m_files.end(), under) ||
         std::any_of(m_failures.begin(), m_failures.end(), under);
}

FileReader::Kind MemoryFileReader::kind(const std::string& path) {
  m_calls.push_back("kind " + path);
  if (m_files.count(path) != 0 || m_failures.count(path) != 0) return Kind::file;
  return is_directory(path) ? Kind::directory : Kind::missing;
}

Expected<std::string> MemoryFileReader::read(const std::string& path, std::size_t max_bytes) {
  m_calls.push_back("read " + path + " " + std::to_string(max_bytes));
  if (const auto f = m_failures.find(path); f != m_failures.end())
    return make_error(ErrorCode::io, f->second);
  const auto it = m_files.find(path);
  if (it == m_files.end()) return make_error(ErrorCode::io, std::strerror(ENOENT));
  return it->second.substr(0, max_bytes + 1);
}

Expected<std::vector<std::string>> MemoryFileReader::manifests_under(const std::string& dir) {
  m_calls.push_back("list " + dir);
  const auto prefix = strip_slash(dir) + "/";
  std::vector<std::string> out;
  for (const auto& [path, content] : m_files) {
    if (path.compare(0, prefix.size(), prefix) == 0 && has_manifest_extension(path)) out.push_back(path);
  }
  for (const auto& [path, message] : m_failures) {
    if (path.compare(0, prefix.size(), prefix) == 0 && has_manifest_extension(path)) out.push_back(path);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace kpt::yaml
