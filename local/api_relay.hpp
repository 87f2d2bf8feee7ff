#pragma once

#include <atomic>
#include <list>
#include <mutex>
#include <set>
#include <thread>

namespace kpt::local {

/// Carries the connections that pods make to the API server's port inside their job's network
/// (JobNetwork::api_listener) to the server on the host's loopback, byte for byte: TLS runs end
/// to end, so the server's certificate for 127.0.0.1 stays valid and nothing is read here.
class ApiRelay {
 public:
  explicit ApiRelay(int api_port);
  ~ApiRelay();
  ApiRelay(const ApiRelay&) = delete;
  ApiRelay& operator=(const ApiRelay&) = delete;

  /// Starts accepting on `listener` (owned by the caller, who calls remove() before closing it).
  void add(int listener);
  void remove(int listener);

 private:
  void accept_loop();
  void carry(int client, std::atomic<bool>& done);
  /// Joins the connections that ended. Holds m_mutex.
  void join_finished();

  struct Connection {
    std::thread thread;
    std::atomic<bool> done{false};
  };
  void wake();

  int m_port;
  int m_wake[2] = {-1, -1};
  std::atomic<bool> m_stop{false};
  std::mutex m_mutex;
  std::set<int> m_listeners;
  std::list<Connection> m_connections;
  std::thread m_acceptor;
};

}  // namespace kpt::local
