#include "local/hosts_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace kpt::local {

bool HostsFile::add(const std::string& name, const std::string& ns) {
  const auto before = m_names.size();
  m_names.insert(name);
  m_names.insert(name + "." + ns);
  m_names.insert(name + "." + ns + ".svc");
  m_names.insert(name + "." + ns + ".svc.cluster.local");
  return m_names.size() != before;
}

bool HostsFile::remove(const std::string& name, const std::string& ns) {
  const auto before = m_names.size();
  for (const auto& n :
       {name, name + "." + ns, name + "." + ns + ".svc", name + "." + ns + ".svc.cluster.local"})
    m_names.erase(n);
  return m_names.size() != before;
}

std::string HostsFile::render() const {
  std::string out = "127.0.0.1 localhost\n::1 localhost\n";
  for (const auto& n : m_names) {
    out += "127.0.0.1 " + n + "\n";
    out += "::1 " + n + "\n";
  }
  return out;
}

Expected<void> HostsFile::write() const {
  const std::string tmp = m_path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << render();
    if (!f) return make_error(ErrorCode::io, "writing '" + tmp + "': " + std::strerror(errno));
  }
  if (std::rename(tmp.c_str(), m_path.c_str()) != 0) {
    return make_error(ErrorCode::io, "renaming '" + tmp + "': " + std::strerror(errno));
  }
  return {};
}

}  // namespace kpt::local
