#include "tests/differential/isolated_oracle.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

namespace kpt::differential {
namespace {

using json = nlohmann::json;

[[noreturn]] void run_child(const std::string& text, int out_fd) {
  const auto result = oracle_parse(text);
  json message = {{"documents", result.documents}};
  if (result.error) message["error"] = *result.error;
  const auto bytes = json::to_cbor(message);
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const auto n = ::write(out_fd, bytes.data() + sent, bytes.size() - sent);
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  ::_exit(sent == bytes.size() ? 0 : 1);
}

/// Everything the child writes until it closes the pipe, or false when the deadline passes first.
bool read_until_closed(int fd, std::chrono::milliseconds deadline, std::vector<std::uint8_t>& out) {
  const auto end = std::chrono::steady_clock::now() + deadline;
  std::uint8_t buf[65536];
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready == 0) return false;
    if (ready < 0) continue;  // EINTR
    const auto n = ::read(fd, buf, sizeof buf);
    if (n == 0) return true;
    if (n > 0) out.insert(out.end(), buf, buf + n);
  }
}

/// CBOR has no signed positive integers: those that fit int64 become int64 again, as the oracle
/// made them (it keeps unsigned only what is past int64).
json signed_again(const json& j) {
  if (j.is_number_unsigned() && j.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX))
    return static_cast<std::int64_t>(j.get<std::uint64_t>());
  if (j.is_array()) {
    json out = json::array();
    for (const auto& v : j) out.push_back(signed_again(v));
    return out;
  }
  if (j.is_object()) {
    json out = json::object();
    for (auto it = j.begin(); it != j.end(); ++it) out[it.key()] = signed_again(it.value());
    return out;
  }
  return j;
}

}  // namespace

OracleResult oracle_parse_isolated(const std::string& text, std::chrono::milliseconds deadline) {
  int fds[2];
  if (::pipe(fds) != 0) return {{}, "pipe failed"};
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return {{}, "fork failed"};
  }
  if (pid == 0) {
    ::close(fds[0]);
    run_child(text, fds[1]);
  }
  ::close(fds[1]);
  std::vector<std::uint8_t> bytes;
  const bool finished = read_until_closed(fds[0], deadline, bytes);
  ::close(fds[0]);
  if (!finished) ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!finished) return {{}, k_oracle_hung};
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return {{}, "yaml-cpp's child failed"};
  const json message = json::from_cbor(bytes, true, false);
  if (message.is_discarded()) return {{}, "unreadable result from yaml-cpp's child"};
  OracleResult result;
  for (const auto& d : message["documents"]) result.documents.push_back(signed_again(d));
  if (message.contains("error")) result.error = message["error"].get<std::string>();
  return result;
}

}  // namespace kpt::differential
