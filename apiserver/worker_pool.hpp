#pragma once

#include "apiserver/socket_connection.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>

namespace kpt::apiserver {

/// Starts a detached thread with a stack of `stack_bytes` that runs `body`; false when the system
/// gives no thread. Request threads get a stack sized for walks of JSON as deep as the server
/// accepts (k_max_json_depth), which std::thread cannot ask for.
bool start_thread(std::size_t stack_bytes, std::function<void()> body);

/// One request to serve: an authenticated connection whose input() starts with the request.
struct RequestJob {
  std::unique_ptr<SocketConnection> conn;
  bool close_after = false;  ///< end the connection after the answer (a body httplib leaves unread)
};

/// The threads that serve ordinary requests, at most `max_threads` at once (started as needed),
/// with at most `max_waiting` requests waiting for one: past that, submit() refuses, and the
/// front end answers 429 as kube-apiserver's max-inflight filter does. Watches, logs and exec do
/// not stay here: their handler hands the connection to a thread of its own.
class WorkerPool {
 public:
  WorkerPool(std::size_t max_threads, std::size_t max_waiting, std::size_t stack_bytes,
             std::function<void(RequestJob)> serve);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// Queues `job` (moved from on success); false when the pool is full or shut down.
  bool submit(RequestJob& job);
  /// Waits up to `wait` until no request is being served; true when none is.
  bool wait_idle(std::chrono::milliseconds wait);
  /// Drops the waiting requests (their connections close), waits for the running ones, and ends
  /// every thread. Idempotent.
  void shutdown();
  /// Requests being served now.
  [[nodiscard]] std::size_t busy() const;
  /// Threads started (each serves one request at a time).
  [[nodiscard]] std::size_t threads() const;

 private:
  struct State;
  static void work_loop(const std::shared_ptr<State>& state);
  std::shared_ptr<State> m_state;  // shared with the threads, which may outlive this by a moment
};

}  // namespace kpt::apiserver
