#include "local/process_ledger.hpp"

#include "local/cluster_paths.hpp"
#include "util/file_io.hpp"
#include "util/strings.hpp"

#include <dirent.h>
#include <signal.h>

#include <charconv>
#include <vector>

namespace kpt::local {

namespace {

template <typename T>
bool parse_number(std::string_view text, T& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

std::optional<ProcStat> read_stat(int pid) {
  auto text = util::read_file("/proc/" + std::to_string(pid) + "/stat", 4096);
  if (!text) return std::nullopt;
  return parse_proc_stat(*text);
}

}  // namespace

std::optional<ProcStat> parse_proc_stat(std::string_view text) {
  const auto open = text.find('(');
  const auto close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  ProcStat stat;
  if (!parse_number(util::trim(text.substr(0, open)), stat.pid)) return std::nullopt;
  // After the name: state(3) ppid(4) pgrp(5) session(6) ... starttime(22).
  std::vector<std::string_view> fields;
  for (std::string_view rest = text.substr(close + 1); !rest.empty();) {
    const auto start = rest.find_first_not_of(' ');
    if (start == std::string_view::npos) break;
    rest.remove_prefix(start);
    const auto end = rest.find(' ');
    fields.push_back(util::trim(rest.substr(0, end)));
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end);
  }
  if (fields.size() < 20) return std::nullopt;
  if (!parse_number(fields[1], stat.ppid) || !parse_number(fields[3], stat.session) ||
      !parse_number(fields[19], stat.start_ticks))
    return std::nullopt;
  return stat;
}

void ProcessLedger::add(int pid) {
  if (const auto stat = read_stat(pid)) {
    m_entries[pid] = stat->start_ticks;
    save();
  }
}

void ProcessLedger::remove(int pid) {
  if (m_entries.erase(pid) > 0) save();
}

void ProcessLedger::save() const {
  std::string text;
  for (const auto& [pid, start] : m_entries) text += std::to_string(pid) + " " + std::to_string(start) + "\n";
  (void)write_private(m_path, text);
}

int ProcessLedger::end_leftovers(const std::string& path) {
  auto text = util::read_file(path, 1 << 20);
  if (!text) return 0;
  std::map<int, unsigned long long> recorded;
  for (const auto& line : util::split(*text, '\n')) {
    const auto parts = util::split(line, ' ');
    int pid = 0;
    unsigned long long start = 0;
    if (parts.size() == 2 && parse_number(parts[0], pid) && parse_number(parts[1], start) && pid > 1)
      recorded[pid] = start;
  }
  int ended = 0;
  std::map<int, unsigned long long> leaders;  // sessions they led: setsid'd children stay in none of them
  for (const auto& [pid, start] : recorded) {
    const auto stat = read_stat(pid);
    if (!stat || stat->start_ticks != start) continue;  // gone, or the pid is another process now
    leaders[pid] = start;
    if (::kill(pid, SIGKILL) == 0) ++ended;
  }
  if (!leaders.empty()) {
    if (DIR* proc = ::opendir("/proc")) {
      while (const dirent* entry = ::readdir(proc)) {
        int pid = 0;
        if (!parse_number(std::string_view(entry->d_name), pid) || leaders.count(pid) > 0) continue;
        const auto stat = read_stat(pid);
        if (!stat) continue;
        const auto leader = leaders.find(stat->session);
        if (leader != leaders.end() && stat->start_ticks >= leader->second && ::kill(pid, SIGKILL) == 0)
          ++ended;
      }
      ::closedir(proc);
    }
  }
  (void)write_private(path, "");
  return ended;
}

}  // namespace kpt::local
