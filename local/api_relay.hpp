#pragma once

#include <atomic>
#include <list>
#include <map>
#include <mutex>
#include <thread>

namespace kpt::local {

/// Carries the connections that pods make inside their job's network to the node's loopback
/// services (the API server, the controller's progress status server; JobNetwork::listeners)
/// to the same port on the host's loopback, byte for byte: TLS runs end to end, so the servers'
/// certificates for 127.0.0.1 and localhost stay valid and nothing is read here.
class ApiRelay {
 public:
  ApiRelay();
  ~ApiRelay();
  ApiRelay(const ApiRelay&) = delete;
  ApiRelay& operator=(const ApiRelay&) = delete;

  /// Starts accepting on `listener` (owned by the caller, who calls remove() before closing it),
  /// relaying to `port` on the host's loopback.
  void add(int listener, int port);
  void remove(int listener);

 private:
  void accept_loop();
  void carry(int client, int port, std::atomic<bool>& done);
  /// Joins the connections that ended. Holds m_mutex.
  void join_finished();

  struct Connection {
    std::thread thread;
    std::atomic<bool> done{false};
  };
  void wake();

  int m_wake[2] = {-1, -1};
  std::atomic<bool> m_stop{false};
  std::mutex m_mutex;
  std::map<int, int> m_listeners;  // listener -> port
  std::list<Connection> m_connections;
  std::thread m_acceptor;
};

}  // namespace kpt::local
