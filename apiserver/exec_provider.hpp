#pragma once

#include "apiserver/http_types.hpp"
#include "apiserver/status.hpp"

#include <nlohmann/json_fwd.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kpt::apiserver {

/// A pods/exec request (PodExecOptions from the query).
struct ExecRequest {
  std::string ns;
  std::string pod;
  std::string container;
  std::vector<std::string> command;
  bool with_stdin = false;
  bool with_stdout = false;
  bool with_stderr = false;
  bool tty = false;
};

/// How a command that started has ended.
struct ExecExit {
  int exit_code = 0;  ///< 128+signal when killed, as a container runtime reports it
};

/// A command running for an exec session. Its descriptors are non-blocking; -1 when absent.
/// With a terminal, output and input share the terminal's descriptor and there is no stderr.
class ExecProcess {
 public:
  virtual ~ExecProcess() = default;  ///< kills the command's process group if it still runs
  [[nodiscard]] virtual int stdin_fd() const = 0;
  [[nodiscard]] virtual int stdout_fd() const = 0;
  [[nodiscard]] virtual int stderr_fd() const = 0;
  /// Writes to the command's stdin without blocking (never raising SIGPIPE): the bytes taken,
  /// -1 with errno EAGAIN when it is full, -1 with another errno when the command closed it.
  virtual long write_stdin(const char* data, std::size_t size) = 0;
  /// The client closed its stdin: the command reads end-of-file (with a terminal: ^D).
  virtual void close_stdin() = 0;
  /// The stream reached end-of-file or failed: stop reading it.
  virtual void close_output(int fd) = 0;
  /// A terminal size change (columns, rows); ignored without a terminal.
  virtual void resize(unsigned cols, unsigned rows) = 0;
  /// The exit, once the command has ended (non-blocking).
  virtual std::optional<ExecExit> poll_exit() = 0;
  /// Ends the command's whole process group now (the client went away).
  virtual void kill() = 0;
};

/// What a command could not start with (reported on the exec's status channel, as the kubelet
/// reports a runtime's exec failure).
struct ExecStartError {
  std::string message;
};

/// Runs exec commands in a pod's container; the embedded node implements it. `check` runs
/// before the connection is upgraded (errors become the HTTP answer); `start` after.
class ExecProvider {
 public:
  virtual ~ExecProvider() = default;
  virtual std::optional<Error> check(const ExecRequest& request, const nlohmann::json& pod) = 0;
  virtual std::unique_ptr<ExecProcess> start(const ExecRequest& request, const nlohmann::json& pod,
                                             ExecStartError& error) = 0;
};

/// The default: no node runs pods.
class NoExecProvider final : public ExecProvider {
 public:
  std::optional<Error> check(const ExecRequest& request, const nlohmann::json& pod) override;
  std::unique_ptr<ExecProcess> start(const ExecRequest& request, const nlohmann::json& pod,
                                     ExecStartError& error) override;
};

/// The exec options of a request's query (repeated `command`, `container`, the four booleans);
/// 400 BadRequest as the real server words it when no command or no stream is asked for.
Expected<ExecRequest> parse_exec_request(const HttpRequest& request, const std::string& ns,
                                         const std::string& pod);

/// The remote-command subprotocols served, preferred first.
inline constexpr const char* k_exec_protocol_v5 = "v5.channel.k8s.io";
inline constexpr const char* k_exec_protocol_v4 = "v4.channel.k8s.io";

/// The subprotocol to answer a Sec-WebSocket-Protocol offer with (empty: none supported).
std::string choose_exec_protocol(const std::string& offered);

/// Runs one exec session on an upgraded WebSocket connection: channel 0 stdin, 1 stdout,
/// 2 stderr, 3 the final metav1.Status (exit code in details.causes[reason=ExitCode]), 4 resize,
/// and (v5) 255 to close a stream. Answers pings; ends with a normal close frame. When the
/// client goes away, or `stopping`, the command is killed.
void run_exec_session(UpgradedConnection& conn, ExecProcess* process, const ExecStartError& start_error,
                      const std::string& protocol, const std::atomic<bool>& stopping);

/// The metav1.Status JSON the status channel carries for an exit code (or a start failure).
std::string exec_status_json(const std::optional<ExecExit>& exit, const std::string& start_error);

}  // namespace kpt::apiserver
