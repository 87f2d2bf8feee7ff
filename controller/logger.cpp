#include "controller/logger.hpp"

#include "util/time.hpp"

#include <nlohmann/json.hpp>

#include <ostream>

namespace kpt::controller {

void Logger::write(const char* level, const std::string& msg, Fields fields) {
  const auto ts = util::format_time(std::chrono::floor<std::chrono::seconds>(m_clock.now()));
  std::string line;
  if (m_format == LogFormat::json) {
    nlohmann::ordered_json j;
    j["ts"] = ts;
    j["level"] = level;
    j["msg"] = msg;
    for (const auto& [k, v] : fields) j[k] = v;
    line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } else {
    line = ts + " " + level + " " + msg;
    for (const auto& [k, v] : fields) {
      const bool quote = v.empty() || v.find_first_of(" \"=") != std::string::npos;
      line += std::string(" ") + k + "=" + (quote ? nlohmann::json(v).dump() : v);
    }
  }
  std::lock_guard lock(m_mutex);
  m_out << line << '\n' << std::flush;
}

}  // namespace kpt::controller
