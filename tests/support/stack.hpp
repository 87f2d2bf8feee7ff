#pragma once

#include <pthread.h>

#include <cstddef>
#include <functional>
#include <stdexcept>

namespace kpt::testing {

/// True in a build under AddressSanitizer, whose stack frames are several times a normal build's and
/// whose shadow memory and quarantine of freed blocks make resident-memory figures meaningless.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool k_under_asan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool k_under_asan = true;
#else
inline constexpr bool k_under_asan = false;
#endif
#else
inline constexpr bool k_under_asan = false;
#endif

/// The stack the API server gives a request (apiserver/worker_pool.cpp: 32 MiB), eight times that under
/// ASan, as the patch fuzz target does.
inline constexpr std::size_t k_request_stack_bytes = (k_under_asan ? std::size_t{256} : std::size_t{32})
                                                     << 20;

/// Runs `body` on a thread of its own with a stack of `bytes`, and waits for it: a test of deep input
/// then runs where the server would run it, not on the main thread's 8 MiB.
inline void run_on_stack(std::size_t bytes, const std::function<void()>& body) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, bytes);
  pthread_t thread;
  const int rc = pthread_create(
      &thread, &attr,
      [](void* arg) -> void* {
        (*static_cast<const std::function<void()>*>(arg))();
        return nullptr;
      },
      const_cast<std::function<void()>*>(&body));
  pthread_attr_destroy(&attr);
  if (rc != 0) throw std::runtime_error("cannot start a thread with a large stack");
  pthread_join(thread, nullptr);
}

}  // namespace kpt::testing
