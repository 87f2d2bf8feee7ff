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
    if (!m_request.timestamps || !m_head_sent) return read_raw(out, wait);  // the head came stamped
    // Then whole lines only, each stamped with when it was written; a last line without its newline
    // once the run has ended.
    std::string raw;
    const bool more = read_raw(raw, wait);
    if (raw.empty()) return more;
    const std::size_t start = m_offset - raw.size();
    const auto nl = raw.rfind('\n');
    if (more && nl != raw.size() - 1) {
      const std::size_t keep = nl == std::string::npos ? 0 : nl + 1;
      m_offset = start + keep;  // the rest is read again with the line's end
      raw.resize(keep);
    }
    out += m_node.log_clock().stamp(m_file, start, raw, std::chrono::system_clock::now());
    return more;
  }

 private:
  bool read_raw(std::string& out, std::chrono::milliseconds wait) {
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

 public:
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
  if (request.timestamps)
    text = m_node.log_clock().stamp(*file, size - text.size(), text, std::chrono::system_clock::now());
  if (request.limit_bytes && *request.limit_bytes >= 0 &&
      text.size() > static_cast<std::size_t>(*request.limit_bytes)) {
    text.resize(static_cast<std::size_t>(*request.limit_bytes));
  }
  auto stream = std::make_unique<FileLogStream>(m_node, request, container.value(), *file, std::move(text));
  stream->set_offset(size);
  return std::unique_ptr<apiserver::LogStream>(std::move(stream));
}

}  // namespace kpt::local
