#include "local/node_log_provider.hpp"

#include "local/log_store.hpp"

#include <nlohmann/json.hpp>

namespace kpt::local {

Expected<std::unique_ptr<apiserver::LogStream>> NodeLogProvider::open(const apiserver::LogRequest& request,
                                                                      const nlohmann::json& pod) {
  auto container = apiserver::resolve_container(request, pod);
  if (!container) return container.error();
  auto file = m_node.log_file(request.ns, request.pod, container.value(), request.previous);
  if (!file) {
    if (request.previous) {
      return apiserver::bad_request("previous terminated container \"" + container.value() + "\" in pod \"" +
                                    request.pod + "\" not found");
    }
    return apiserver::bad_request("container \"" + container.value() + "\" in pod \"" + request.pod +
                                  "\" is waiting to start: ContainerCreating");
  }
  LogStore::StreamOptions options;
  options.tail_lines = request.tail_lines;
  options.limit_bytes = request.limit_bytes;
  options.since = request.since;
  options.follow = request.follow;
  // A followed log ends when its run has ended (a restart writes another file).
  options.still_written = [&node = m_node, ns = request.ns, pod = request.pod, container = container.value(),
                           file = *file] {
    return node.container_running(ns, pod, container) && node.log_file(ns, pod, container, false) == file;
  };
  if (request.timestamps) {
    options.stamp = [&clock = m_node.log_clock(), file = *file](std::uint64_t offset,
                                                                std::string_view lines) {
      return clock.stamp(file, static_cast<std::size_t>(offset), lines, std::chrono::system_clock::now());
    };
  }
  return LogStore::open(*file, std::move(options));
}

}  // namespace kpt::local
