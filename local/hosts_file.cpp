#include "local/hosts_file.hpp"

#include "util/file_io.hpp"

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

Expected<void> HostsFile::write() const { return util::write_file_atomically(m_path, render()); }

}  // namespace kpt::local
