#include "apiserver/worker_pool.hpp"

#include <pthread.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>

namespace kpt::apiserver {

bool start_thread(std::size_t stack_bytes, std::function<void()> body) {
  auto* heap = new std::function<void()>(std::move(body));
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, stack_bytes);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  const int rc = pthread_create(
      &thread, &attr,
      [](void* arg) -> void* {
        std::unique_ptr<std::function<void()>> run(static_cast<std::function<void()>*>(arg));
        (*run)();
        return nullptr;
      },
      heap);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    delete heap;
    return false;
  }
  return true;
}

struct WorkerPool::State {
  std::size_t max_threads;
  std::size_t max_waiting;
  std::size_t stack_bytes;
  std::function<void(RequestJob)> serve;
  std::mutex mutex;
  std::condition_variable work;  // a job waits, or stopping
  std::condition_variable done;  // a job ended, or a thread
  std::deque<RequestJob> waiting;
  std::size_t threads = 0;
  std::size_t busy = 0;
  bool stopping = false;
};

WorkerPool::WorkerPool(std::size_t max_threads, std::size_t max_waiting, std::size_t stack_bytes,
                       std::function<void(RequestJob)> serve)
    : m_state(std::make_shared<State>()) {
  m_state->max_threads = std::max<std::size_t>(1, max_threads);
  m_state->max_waiting = max_waiting;
  m_state->stack_bytes = stack_bytes;
  m_state->serve = std::move(serve);
}

WorkerPool::~WorkerPool() { shutdown(); }

bool WorkerPool::submit(RequestJob& job) {
  auto& s = *m_state;
  std::unique_lock lock(s.mutex);
  if (s.stopping) return false;
  const std::size_t free_threads = s.threads - s.busy;
  if (s.waiting.size() >= free_threads && s.threads >= s.max_threads && s.waiting.size() >= s.max_waiting)
    return false;
  s.waiting.push_back(std::move(job));
  if (s.waiting.size() > free_threads && s.threads < s.max_threads) {
    ++s.threads;
    if (!start_thread(s.stack_bytes, [state = m_state] { work_loop(state); })) {
      --s.threads;
      if (s.threads == 0) {  // nothing would ever serve it
        job = std::move(s.waiting.back());
        s.waiting.pop_back();
        return false;
      }
    }
  }
  s.work.notify_one();
  return true;
}

bool WorkerPool::wait_idle(std::chrono::milliseconds wait) {
  auto& s = *m_state;
  std::unique_lock lock(s.mutex);
  return s.done.wait_for(lock, wait, [&] { return s.busy == 0 && s.waiting.empty(); });
}

void WorkerPool::shutdown() {
  auto& s = *m_state;
  std::deque<RequestJob> dropped;
  std::unique_lock lock(s.mutex);
  s.stopping = true;
  dropped.swap(s.waiting);
  s.work.notify_all();
  s.done.wait(lock, [&] { return s.threads == 0; });
  lock.unlock();
  dropped.clear();  // closes their connections
}

std::size_t WorkerPool::busy() const {
  std::lock_guard lock(m_state->mutex);
  return m_state->busy;
}

std::size_t WorkerPool::threads() const {
  std::lock_guard lock(m_state->mutex);
  return m_state->threads;
}

void WorkerPool::work_loop(const std::shared_ptr<State>& state) {
  auto& s = *state;
  std::unique_lock lock(s.mutex);
  for (;;) {
    s.work.wait(lock, [&] { return s.stopping || !s.waiting.empty(); });
    if (s.waiting.empty()) break;  // stopping
    RequestJob job = std::move(s.waiting.front());
    s.waiting.pop_front();
    ++s.busy;
    lock.unlock();
    s.serve(std::move(job));
    lock.lock();
    --s.busy;
    s.done.notify_all();
  }
  --s.threads;
  s.done.notify_all();
}

}  // namespace kpt::apiserver
