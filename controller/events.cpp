#include "controller/events.hpp"

#include "util/time.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace kpt::controller {

void EventRecorder::record(const nlohmann::json& object, const std::string& type, const std::string& reason,
                           const std::string& message) {
  if (!m_enabled) return;
  const auto& meta = object.at("metadata");
  const auto now = m_clock.now();
  const auto wall = util::format_time(std::chrono::floor<std::chrono::seconds>(now));
  const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  char suffix[40];
  std::snprintf(suffix, sizeof suffix, ".%llx%lx", static_cast<unsigned long long>(nanos), ++m_sequence);
  const std::string ns = meta.value("namespace", std::string{});
  const nlohmann::json ev = {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata", {{"name", meta.value("name", std::string{}) + suffix}, {"namespace", ns}}},
      {"involvedObject",
       {{"apiVersion", m_api_version},
        {"kind", m_kind},
        {"name", meta.value("name", std::string{})},
        {"namespace", ns},
        {"uid", meta.value("uid", std::string{})}}},
      {"reason", reason},
      {"message", message},
      {"type", type},
      {"source", {{"component", m_component}}},
      {"reportingComponent", m_component},
      {"reportingInstance", m_instance},
      {"firstTimestamp", wall},
      {"lastTimestamp", wall},
      {"count", 1}};
  (void)m_client.create(kube::resources::events(), ns, ev);
}

}  // namespace kpt::controller
