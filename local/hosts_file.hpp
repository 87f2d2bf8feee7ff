#pragma once

#include "util/expected.hpp"

#include <set>
#include <string>

namespace kpt::local {

/// The nss_wrapper hosts file through which local processes resolve Service and pod names
/// (`mnist-dp-worker-0`, `...<ns>`, `...<ns>.svc`, `...<ns>.svc.cluster.local`) to loopback.
/// Every name gets both 127.0.0.1 and ::1: torch's c10d store asks for IPv6 first and retries
/// forever on a name that has only an IPv4 entry. nss_wrapper reads at most
/// NSS_WRAPPER_MAX_HOSTENTS lines (100 unless the env says more) and silently ignores the rest,
/// so the file holds the names of live pods only and the pods are given a larger bound.
class HostsFile {
 public:
  explicit HostsFile(std::string path) : m_path(std::move(path)) {}

  /// Adds `name` in namespace `ns` (all its DNS spellings). Returns true when the set changed.
  bool add(const std::string& name, const std::string& ns);
  /// Removes `name` in `ns` (all its spellings): a deleted pod's names do not pile up. Returns
  /// true when the set changed.
  bool remove(const std::string& name, const std::string& ns);
  /// Writes the file atomically (write + rename) so readers never see half a file.
  Expected<void> write() const;
  /// The file's text for the current names.
  [[nodiscard]] std::string render() const;
  [[nodiscard]] const std::string& path() const { return m_path; }

 private:
  std::string m_path;
  std::set<std::string> m_names;
};

}  // namespace kpt::local
