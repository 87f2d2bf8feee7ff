#include "local/api_relay.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace kpt::local {

namespace {

constexpr int k_poll_ms = 200;  // how often waiting threads look at the stop flag

int connect_to_server(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

/// Moves what `from` has to `to`; false once `from` ended or either failed.
bool pump(int from, int to) {
  char buf[16384];
  const ssize_t n = ::recv(from, buf, sizeof buf, 0);
  if (n <= 0) return false;
  for (ssize_t off = 0; off < n;) {
    const ssize_t w = ::send(to, buf + off, static_cast<std::size_t>(n - off), MSG_NOSIGNAL);
    if (w <= 0) return false;
    off += w;
  }
  return true;
}

}  // namespace

ApiRelay::ApiRelay() {
  if (::pipe2(m_wake, O_CLOEXEC | O_NONBLOCK) != 0) m_wake[0] = m_wake[1] = -1;
  m_acceptor = std::thread([this] { accept_loop(); });
}

ApiRelay::~ApiRelay() {
  m_stop = true;
  wake();
  m_acceptor.join();
  for (auto& c : m_connections) c.thread.join();
  for (const int fd : m_wake)
    if (fd >= 0) ::close(fd);
}

void ApiRelay::wake() {
  if (m_wake[1] >= 0) (void)!::write(m_wake[1], "x", 1);
}

void ApiRelay::add(int listener, int port) {
  {
    std::lock_guard lock(m_mutex);
    m_listeners[listener] = port;
  }
  wake();
}

void ApiRelay::remove(int listener) {
  {
    std::lock_guard lock(m_mutex);
    m_listeners.erase(listener);
  }
  wake();
}

void ApiRelay::accept_loop() {
  while (!m_stop) {
    std::vector<pollfd> fds{{m_wake[0], POLLIN, 0}};
    {
      std::lock_guard lock(m_mutex);
      for (const auto& [l, port] : m_listeners) fds.push_back({l, POLLIN, 0});
    }
    if (::poll(fds.data(), fds.size(), k_poll_ms) <= 0) continue;
    if ((fds[0].revents & POLLIN) != 0) {
      char drain[64];
      while (::read(m_wake[0], drain, sizeof drain) > 0) {
      }
    }
    for (std::size_t i = 1; i < fds.size(); ++i) {
      if ((fds[i].revents & POLLIN) == 0) continue;
      std::lock_guard lock(m_mutex);
      const auto listener = m_listeners.find(fds[i].fd);
      if (listener == m_listeners.end()) continue;  // removed meanwhile: maybe closed
      const int port = listener->second;
      join_finished();
      const int client = ::accept4(fds[i].fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) continue;
      auto& c = m_connections.emplace_back();
      c.thread = std::thread([this, client, port, &done = c.done] { carry(client, port, done); });
    }
  }
}

void ApiRelay::join_finished() {
  for (auto it = m_connections.begin(); it != m_connections.end();) {
    if (!it->done) {
      ++it;
      continue;
    }
    it->thread.join();
    it = m_connections.erase(it);
  }
}

void ApiRelay::carry(int client, int port, std::atomic<bool>& done) {
  const int server = connect_to_server(port);
  if (server >= 0) {
    pollfd fds[2] = {{client, POLLIN, 0}, {server, POLLIN, 0}};
    bool open = true;
    while (open && !m_stop) {
      if (::poll(fds, 2, k_poll_ms) <= 0) continue;
      if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) open = pump(client, server);
      if (open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0) open = pump(server, client);
    }
    ::close(server);
  }
  ::close(client);
  done = true;
}

}  // namespace kpt::local
