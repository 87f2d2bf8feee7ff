#include "local/node_log_provider.hpp"

#include "local/log_store.hpp"

#include <nlohmann/json.hpp>

#include <fstream>
#include <thread>

namespace kpt::local {

namespace {

class FileLogStream final : public apiserver::LogStream {
 public:
  FileLogStream(const LocalNode& node, apiserver::LogRequest request, std::string container, std::string file,
                std::string head)
      : m_node(node),
        m_request(std::move(request)),
        m_container(std::move(container)),
        m_file(std::move(file)),
        m_head(std::move(head)) {}

  bool read(std::string& out, std::chrono::milliseconds wait) override {
    if (!m_head_sent) {
      // The first chunk honours tailLines/limitBytes; a followed log then continues from
      // the end of the file as it was when opened.
      m_head_sent = true;
      if (!m_head.empty()) {
        out += m_head;
        return true;
      }
    }
    if (!m_request.follow) return false;
    const auto deadline = std::chrono::steady_clock::now() + wait;
    while (true) {
      const bool running = m_node.container_running(m_request.ns, m_request.pod, m_container) &&
                           m_node.log_file(m_request.ns, m_request.pod, m_container, false) == m_file;
      std::ifstream in(m_file, std::ios::binary);
      in.seekg(static_cast<std::streamoff>(m_offset));
      char buf[16384];
      in.read(buf, sizeof buf);
      const auto n = in.gcount();
      if (n > 0) {
        out.append(buf, static_cast<std::size_t>(n));
        m_offset += static_cast<std::size_t>(n);
        return true;
      }
      if (!running) return false;  // ended and drained
      if (std::chrono::steady_clock::now() >= deadline) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  void set_offset(std::size_t offset) { m_offset = offset; }

 private:
  const LocalNode& m_node;
  apiserver::LogRequest m_request;
  std::string m_container;
  std::string m_file;
  std::string m_head;
  bool m_head_sent = false;
  std::size_t m_offset = 0;
};

}  // namespace

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
  // A run that has not written yet has no file: that is an empty log, not an error.
  auto whole = LogStore::read(*file, {});
  std::string text = whole ? std::move(*whole) : std::string{};
  const std::size_t size = text.size();
  if (request.tail_lines) text = LogStore::tail(text, *request.tail_lines);
  if (request.limit_bytes && *request.limit_bytes >= 0 &&
      text.size() > static_cast<std::size_t>(*request.limit_bytes)) {
    text.resize(static_cast<std::size_t>(*request.limit_bytes));
  }
  auto stream = std::make_unique<FileLogStream>(m_node, request, container.value(), *file, std::move(text));
  stream->set_offset(size);
  return std::unique_ptr<apiserver::LogStream>(std::move(stream));
}

}  // namespace kpt::local
