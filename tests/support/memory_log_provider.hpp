#pragma once

// A LogProvider that holds logs in memory, for the API server's tests (the node's logs are files).

#include "apiserver/log_provider.hpp"

#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace kpt::apiserver {

/// Logs held in memory, per ns/pod/container; previous containers have none.
class MemoryLogProvider final : public LogProvider {
 public:
  void append(const std::string& ns, const std::string& pod, const std::string& container,
              std::string_view text);
  /// Marks a container's log finished: followers end after the last byte.
  void finish(const std::string& ns, const std::string& pod, const std::string& container);
  Expected<std::unique_ptr<LogStream>> open(const LogRequest& request, const nlohmann::json& pod) override;

  struct Entry {
    std::string text;
    bool finished = false;
  };

 private:
  friend class MemoryLogStream;
  std::mutex m_mutex;
  std::map<std::string, Entry> m_logs;
};

}  // namespace kpt::apiserver
