#include "controller/process_metrics.hpp"

#include "util/file_io.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <vector>

namespace kpt::controller {

namespace {

/// The fields of /proc/self/stat after the command name (field 3 on), which may hold spaces.
std::vector<std::string> stat_fields() {
  const auto read = util::read_file("/proc/self/stat", 4096);
  const std::string text = read ? *read : std::string{};
  const auto close = text.rfind(')');
  std::vector<std::string> out;
  if (close == std::string::npos) return out;
  std::istringstream rest(text.substr(close + 1));
  for (std::string f; rest >> f;) out.push_back(f);
  return out;
}

long boot_time_seconds() {
  const auto read = util::read_file("/proc/stat", 1 << 20);
  if (!read) return 0;
  const auto at = read->find("\nbtime ");
  return at == std::string::npos ? 0 : std::atol(read->c_str() + at + 7);
}

void gauge(std::ostringstream& o, const char* name, const char* help, const char* type, double value) {
  o << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n"
    << name << " " << value << "\n";
}

}  // namespace

std::string process_metrics_text() {
  const auto f = stat_fields();
  // After the name: state(3) ... utime(14) stime(15) ... starttime(22) vsize(23) rss(24).
  if (f.size() < 22) return {};
  std::ostringstream o;
  o.precision(17);
  const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(::sysconf(_SC_PAGESIZE));
  try {
    gauge(o, "process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", "counter",
          (std::stod(f[11]) + std::stod(f[12])) / ticks);
    gauge(o, "process_resident_memory_bytes", "Resident memory size in bytes.", "gauge",
          std::stod(f[21]) * page);
    gauge(o, "process_virtual_memory_bytes", "Virtual memory size in bytes.", "gauge", std::stod(f[20]));
    gauge(o, "process_start_time_seconds", "Start time of the process since unix epoch in seconds.", "gauge",
          static_cast<double>(boot_time_seconds()) + std::stod(f[19]) / ticks);
  } catch (const std::exception&) {
    return {};
  }
  std::error_code ec;
  long fds = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++fds;
  gauge(o, "process_open_fds", "Number of open file descriptors.", "gauge", static_cast<double>(fds));
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0)
    gauge(o, "process_max_fds", "Maximum number of open file descriptors.", "gauge",
          static_cast<double>(limit.rlim_cur));
  return o.str();
}

}  // namespace kpt::controller
