#include "plugin/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

namespace kpt::plugin {

namespace {

// A signal handler can only reach static storage; this flag is the one piece of
// process-wide state the program keeps, and only while an InterruptGuard lives.
std::atomic<bool> g_interrupted{false};
struct sigaction g_old_int;
struct sigaction g_old_term;

void on_signal(int) {
  if (g_interrupted.exchange(true)) ::_exit(130);
}

}  // namespace

InterruptGuard::InterruptGuard() {
  g_interrupted = false;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, &g_old_int);
  ::sigaction(SIGTERM, &sa, &g_old_term);
}

InterruptGuard::~InterruptGuard() {
  ::sigaction(SIGINT, &g_old_int, nullptr);
  ::sigaction(SIGTERM, &g_old_term, nullptr);
}

const std::atomic<bool>& InterruptGuard::flag() const { return g_interrupted; }

}  // namespace kpt::plugin
