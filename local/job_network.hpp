#pragma once

#include "util/expected.hpp"

#include <memory>
#include <string>
#include <vector>

namespace kpt::local {

/// What this machine lets the node do for pods, measured once at start by probe_isolation().
struct IsolationSupport {
  bool namespaces = false;      ///< a network namespace per job and a PID namespace per pod
  bool user_namespace = false;  ///< they need a user namespace (the node is not root)
  std::string unavailable;      ///< why not, when they are not: the step that failed and its error
};

/// Tries, in throw-away namespaces, what pods need: a network namespace with loopback up and a
/// PID namespace in it; as root without a user namespace first, else inside one owned by the
/// node's user (a kernel may refuse: unprivileged user namespaces switched off or confined).
IsolationSupport probe_isolation();

/// A job's private network, as a pod sandbox has one on a real node: a network namespace with
/// loopback up (inside a user namespace of the node's user when the node is not root), held
/// open by descriptors, so that every job's pods bind the same ports (23456, 29500) side by
/// side. A socket listens inside it on each of the node's loopback services' ports (the API
/// server's, the progress status server's); the node relays what connects there to the host's
/// loopback (ApiRelay), so 127.0.0.1:<port> reaches those servers from pods too.
class JobNetwork {
 public:
  struct Listener {
    int fd = -1;
    int port = 0;
  };
  static constexpr int k_max_relayed = 4;
  /// A listener inside the network for each of `relayed_ports` (at most k_max_relayed; 0s skipped).
  static Expected<std::unique_ptr<JobNetwork>> create(bool user_namespace, std::vector<int> relayed_ports);
  ~JobNetwork();
  JobNetwork(const JobNetwork&) = delete;
  JobNetwork& operator=(const JobNetwork&) = delete;

  [[nodiscard]] int user_fd() const { return m_user; }  ///< -1 without a user namespace
  [[nodiscard]] int net_fd() const { return m_net; }
  [[nodiscard]] const std::vector<Listener>& listeners() const { return m_listeners; }

 private:
  JobNetwork(int user, int net, std::vector<Listener> listeners)
      : m_user(user), m_net(net), m_listeners(std::move(listeners)) {}
  int m_user = -1;
  int m_net = -1;
  std::vector<Listener> m_listeners;
};

/// "<id> <id> 1\n": a user namespace map of one id to itself.
std::string identity_map(unsigned id);

}  // namespace kpt::local
