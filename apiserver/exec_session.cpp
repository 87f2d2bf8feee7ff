// One exec session: the Kubernetes remote-command channels over a WebSocket connection
// (k8s.io/apimachinery pkg/util/remotecommand constants; client side in k8s.io/client-go
// tools/remotecommand/websocket.go and v4.go, as kubectl v1.32 speaks it).
#include "apiserver/body_limits.hpp"
#include "apiserver/exec_provider.hpp"
#include "apiserver/websocket.hpp"

#include <nlohmann/json.hpp>

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace kpt::apiserver {

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr char k_channel_stdin = 0;
constexpr char k_channel_stdout = 1;
constexpr char k_channel_stderr = 2;
constexpr char k_channel_status = 3;
constexpr char k_channel_resize = 4;
constexpr unsigned char k_channel_close = 255;  // v5: [255, channel] closes that stream

constexpr std::size_t k_max_message = 1 << 20;        // a client message (stdin chunk) at most 1 MiB
constexpr std::size_t k_max_pending_stdin = 1 << 20;  // stop reading the socket while stdin lags
constexpr std::size_t k_output_chunk = 32 * 1024;     // client-go's buffer size per message
constexpr auto k_tick = std::chrono::milliseconds(100);
constexpr auto k_drain_after_exit = std::chrono::seconds(1);  // output of children that outlive the command
constexpr auto k_close_wait = std::chrono::seconds(2);

class Session {
 public:
  Session(UpgradedConnection& conn, ExecProcess& process, bool v5)
      : m_conn(conn), m_process(process), m_v5(v5) {}

  void run(const std::atomic<bool>& stopping) {
    std::optional<ExecExit> exit;
    std::optional<Clock::time_point> exited_at;
    while (!m_client_gone) {
      if (stopping) {
        m_process.kill();
        close_connection(ws::k_close_going_away, "the server is stopping");
        return;
      }
      pump_once();
      if (m_client_gone) break;
      if (!exit) {
        exit = m_process.poll_exit();
        if (exit) exited_at = Clock::now();
      }
      const bool drained = m_stdout_fd < 0 && m_stderr_fd < 0;
      if (exit && (drained || Clock::now() - *exited_at >= k_drain_after_exit)) {
        finish(exit_status_text(exit));
        return;
      }
    }
    m_process.kill();
  }

  /// Sends the final status and closes.
  void finish(const std::string& status) {
    send(k_channel_status, status);
    close_connection(ws::k_close_normal, "");
  }

 private:
  static std::string exit_status_text(const std::optional<ExecExit>& exit) {
    return exec_status_json(exit, {});
  }

  bool send(char channel, std::string_view data) {
    std::string payload(1, channel);
    payload.append(data);
    if (!m_conn.write(ws::encode_frame(ws::Opcode::binary, payload))) m_client_gone = true;
    return !m_client_gone;
  }

  /// Sends a close frame and waits (bounded) for the client's, so unread bytes never turn the
  /// socket's close into a reset that could drop the last frames.
  void close_connection(std::uint16_t code, std::string_view reason) {
    if (m_client_gone) return;
    if (!m_conn.write(ws::encode_frame(ws::Opcode::close, ws::close_payload(code, reason)))) return;
    const auto until = Clock::now() + k_close_wait;
    char buf[4096];
    while (Clock::now() < until) {
      const long n = m_conn.read(buf, sizeof buf, k_tick);
      if (n < 0) return;
      if (n == 0) continue;
      m_decoder.feed(std::string_view(buf, static_cast<std::size_t>(n)));
      std::optional<ws::Violation> violation;
      while (auto msg = m_decoder.next(violation)) {
        if (msg->opcode == ws::Opcode::close) return;
      }
      if (violation) return;
    }
  }

  void pump_once() {
    std::vector<pollfd> fds;
    const bool read_socket = m_pending_stdin.size() < k_max_pending_stdin;
    if (read_socket) fds.push_back({m_conn.fd(), POLLIN, 0});
    if (m_stdout_fd >= 0) fds.push_back({m_stdout_fd, POLLIN, 0});
    if (m_stderr_fd >= 0) fds.push_back({m_stderr_fd, POLLIN, 0});
    if (!m_pending_stdin.empty() && m_stdin_fd >= 0) fds.push_back({m_stdin_fd, POLLOUT, 0});
    const int wait = read_socket && m_conn.has_buffered() ? 0 : static_cast<int>(k_tick.count());
    if (::poll(fds.data(), fds.size(), wait) < 0 && errno != EINTR) return;
    for (const auto& p : fds) {
      if (p.revents == 0) continue;
      if (p.fd == m_conn.fd() && (p.events & POLLIN) != 0) continue;  // below, with has_buffered()
      if ((p.events & POLLOUT) != 0) {
        write_stdin();
      } else {
        copy_output(p.fd);
      }
    }
    if (read_socket) read_client();
    if (m_close_stdin_requested && m_pending_stdin.empty()) close_stdin();
  }

  void read_client() {
    char buf[65536];
    for (int round = 0; round < 16; ++round) {
      const long n = m_conn.read(buf, sizeof buf, std::chrono::milliseconds(0));
      if (n < 0) {
        m_client_gone = true;
        return;
      }
      if (n == 0) return;
      m_decoder.feed(std::string_view(buf, static_cast<std::size_t>(n)));
      std::optional<ws::Violation> violation;
      while (auto msg = m_decoder.next(violation)) {
        on_message(*msg);
        if (m_client_gone) return;
      }
      if (violation) {
        m_process.kill();
        close_connection(violation->close_code, violation->reason);
        m_client_gone = true;
        return;
      }
      if (!m_conn.has_buffered() || m_pending_stdin.size() >= k_max_pending_stdin) return;
    }
  }

  void on_message(const ws::Message& msg) {
    switch (msg.opcode) {
      case ws::Opcode::ping:
        if (!m_conn.write(ws::encode_frame(ws::Opcode::pong, msg.payload))) m_client_gone = true;
        return;
      case ws::Opcode::close:
        // The client ends the session: answer its close and stop the command.
        (void)m_conn.write(ws::encode_frame(ws::Opcode::close, ws::close_payload(ws::k_close_normal)));
        m_client_gone = true;
        return;
      case ws::Opcode::binary:
      case ws::Opcode::text:  // Python's client sends str data as text frames
        on_data(msg.payload);
        return;
      default:
        return;
    }
  }

  void on_data(const std::string& payload) {
    if (payload.empty()) return;
    const auto channel = static_cast<unsigned char>(payload[0]);
    if (channel == static_cast<unsigned char>(k_channel_stdin)) {
      if (m_stdin_fd >= 0 && !m_close_stdin_requested) m_pending_stdin.append(payload, 1);
    } else if (channel == static_cast<unsigned char>(k_channel_resize)) {
      if (json_too_deep(payload)) return;
      const auto size = json::parse(payload.substr(1), nullptr, false);
      if (size.is_object() && size.value("Width", json()).is_number_unsigned() &&
          size.value("Height", json()).is_number_unsigned()) {
        m_process.resize(size["Width"].get<unsigned>(), size["Height"].get<unsigned>());
      }
    } else if (m_v5 && channel == k_channel_close && payload.size() >= 2 && payload[1] == k_channel_stdin) {
      m_close_stdin_requested = true;
    }
  }

  void write_stdin() {
    while (!m_pending_stdin.empty()) {
      const long n = m_process.write_stdin(m_pending_stdin.data(), m_pending_stdin.size());
      if (n > 0) {
        m_pending_stdin.erase(0, static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
      m_pending_stdin.clear();  // the command closed its stdin: what it did not read is dropped
      close_stdin();
      return;
    }
  }

  void close_stdin() {
    if (m_stdin_fd < 0) return;
    m_process.close_stdin();
    // With a terminal, stdin is also the output: only stop writing.
    m_stdin_fd = -1;
    m_close_stdin_requested = false;
  }

  void copy_output(int fd) {
    char buf[k_output_chunk];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      (void)send(fd == m_stderr_fd ? k_channel_stderr : k_channel_stdout,
                 std::string_view(buf, static_cast<std::size_t>(n)));
      return;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    // End of file, or EIO from a terminal whose command has exited.
    m_process.close_output(fd);
    if (fd == m_stdout_fd) m_stdout_fd = -1;
    if (fd == m_stderr_fd) m_stderr_fd = -1;
  }

  UpgradedConnection& m_conn;
  ExecProcess& m_process;
  bool m_v5;
  ws::Decoder m_decoder{k_max_message};
  int m_stdin_fd = m_process.stdin_fd();
  int m_stdout_fd = m_process.stdout_fd();
  int m_stderr_fd = m_process.stderr_fd();
  std::string m_pending_stdin;
  bool m_close_stdin_requested = false;
  bool m_client_gone = false;
};

}  // namespace

std::string exec_status_json(const std::optional<ExecExit>& exit, const std::string& start_error) {
  if (!start_error.empty()) {
    return json{{"metadata", json::object()},
                {"status", "Failure"},
                {"message", start_error},
                {"reason", "InternalError"},
                {"code", 500}}
        .dump();
  }
  if (exit && exit->exit_code == 0) return json{{"metadata", json::object()}, {"status", "Success"}}.dump();
  const int code = exit ? exit->exit_code : 1;
  return json{
      {"metadata", json::object()},
      {"status", "Failure"},
      {"message", "command terminated with non-zero exit code: exit status " + std::to_string(code)},
      {"reason", "NonZeroExitCode"},
      {"details", {{"causes", json::array({{{"reason", "ExitCode"}, {"message", std::to_string(code)}}})}}}}
      .dump();
}

void run_exec_session(UpgradedConnection& conn, ExecProcess* process, const ExecStartError& start_error,
                      const std::string& protocol, const std::atomic<bool>& stopping) {
  if (process == nullptr) {
    // Nothing runs: the status channel says why, as the kubelet reports a runtime's failure.
    std::string payload(1, k_channel_status);
    payload += exec_status_json(
        std::nullopt, start_error.message.empty() ? "the command did not start" : start_error.message);
    if (!conn.write(ws::encode_frame(ws::Opcode::binary, payload))) return;
    (void)conn.write(ws::encode_frame(ws::Opcode::close, ws::close_payload(ws::k_close_normal)));
    char buf[4096];
    (void)conn.read(buf, sizeof buf, std::chrono::milliseconds(500));
    return;
  }
  Session session(conn, *process, protocol == k_exec_protocol_v5);
  session.run(stopping);
}

}  // namespace kpt::apiserver
