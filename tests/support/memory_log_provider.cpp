#include "tests/support/memory_log_provider.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <thread>

namespace kpt::apiserver {

namespace {

std::string log_key(const std::string& ns, const std::string& pod, const std::string& container) {
  return ns + "/" + pod + "/" + container;
}

}  // namespace

class MemoryLogStream final : public LogStream {
 public:
  MemoryLogStream(MemoryLogProvider& provider, std::string key, std::string initial, std::size_t offset,
                  bool follow)
      : m_provider(provider),
        m_key(std::move(key)),
        m_pending(std::move(initial)),
        m_offset(offset),
        m_follow(follow) {}

  bool read(std::string& out, std::chrono::milliseconds wait) override {
    if (!m_pending.empty()) {
      out += m_pending;
      m_pending.clear();
      return true;
    }
    if (!m_follow) return false;
    const auto deadline = std::chrono::steady_clock::now() + wait;
    for (;;) {
      {
        std::lock_guard lock(m_provider.m_mutex);
        const auto& e = m_provider.m_logs[m_key];
        if (e.text.size() > m_offset) {
          out += e.text.substr(m_offset);
          m_offset = e.text.size();
          return true;
        }
        if (e.finished) return false;
      }
      if (std::chrono::steady_clock::now() >= deadline) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

 private:
  MemoryLogProvider& m_provider;
  std::string m_key;
  std::string m_pending;
  std::size_t m_offset;
  bool m_follow;
};

void MemoryLogProvider::append(const std::string& ns, const std::string& pod, const std::string& container,
                               std::string_view text) {
  std::lock_guard lock(m_mutex);
  m_logs[log_key(ns, pod, container)].text.append(text);
}

void MemoryLogProvider::finish(const std::string& ns, const std::string& pod, const std::string& container) {
  std::lock_guard lock(m_mutex);
  m_logs[log_key(ns, pod, container)].finished = true;
}

Expected<std::unique_ptr<LogStream>> MemoryLogProvider::open(const LogRequest& request,
                                                             const nlohmann::json& pod) {
  auto container = resolve_container(request, pod);
  if (!container) return container.error();
  const auto key = log_key(request.ns, request.pod, container.value());
  std::lock_guard lock(m_mutex);
  const auto it = m_logs.find(key);
  if (it == m_logs.end()) {
    return bad_request("container \"" + container.value() + "\" in pod \"" + request.pod +
                       "\" is waiting to start: ContainerCreating");
  }
  if (request.previous) {
    return bad_request("previous terminated container \"" + container.value() + "\" in pod \"" + request.pod +
                       "\" not found");
  }
  std::string initial = limit_log(it->second.text, request.tail_lines, request.limit_bytes);
  const bool follow = request.follow && !request.limit_bytes;
  return std::unique_ptr<LogStream>(
      std::make_unique<MemoryLogStream>(*this, key, std::move(initial), it->second.text.size(), follow));
}

}  // namespace kpt::apiserver
