#include "plugin/follow/follow_output.hpp"

#include "plugin/follow/rank_silence.hpp"

#include <algorithm>
#include <ostream>

namespace kpt::plugin {

void Console::log_line(const std::string& line) {
  std::lock_guard lock(m_mutex);
  clear_status();
  m_out << line << '\n' << std::flush;
  draw_status();
}

void Console::note(const std::string& line) {
  std::lock_guard lock(m_mutex);
  clear_status();
  m_err << line << '\n' << std::flush;
  draw_status();
}

void Console::status(const std::string& line) {
  std::lock_guard lock(m_mutex);
  if (line == m_status) return;
  if (m_live) {
    clear_status();
    m_status = line;
    draw_status();
  } else {
    m_status = line;
    m_err << line << '\n' << std::flush;
  }
}

void Console::finish() {
  std::lock_guard lock(m_mutex);
  clear_status();
  m_status.clear();
  m_live = false;
}

void Console::clear_status() {
  if (m_live && !m_status.empty()) m_err << "\r\033[K" << std::flush;
}

void Console::draw_status() {
  if (m_live && !m_status.empty()) m_err << m_status << std::flush;
}

namespace {

// FNV-1a over the bytes of a log: a reopened stream must begin with exactly the bytes printed.
constexpr std::uint64_t k_fnv_basis = 14695981039346656037ull;
constexpr std::uint64_t k_fnv_prime = 1099511628211ull;

std::uint64_t fnv(std::uint64_t h, std::string_view data) {
  for (unsigned char c : data) h = (h ^ c) * k_fnv_prime;
  return h;
}

constexpr std::chrono::milliseconds k_first_retry{100};
constexpr std::chrono::milliseconds k_max_retry{2000};
constexpr std::chrono::milliseconds k_cancel_poll{50};

}  // namespace

LogTail::LogTail(kube::ApiClient& api, Console& console, Options options)
    : m_console(console),
      m_options(std::move(options)),
      m_clock(m_options.clock != nullptr ? *m_options.clock : m_real_clock),
      m_thread([this, &api] { read(api); }) {}

LogTail::~LogTail() {
  cancel();
  if (m_thread.joinable()) m_thread.join();
}

bool LogTail::ended() const {
  std::lock_guard lock(m_mutex);
  return m_ended;
}

void LogTail::resume() {
  std::lock_guard lock(m_mutex);
  if (!m_ended) return;
  m_verdict = Verdict::resume;
  m_cv.notify_all();
}

void LogTail::finish() {
  std::lock_guard lock(m_mutex);
  m_verdict = Verdict::finish;  // also before the stream ends: it then ends the tail at once
  m_cv.notify_all();
}

void LogTail::cancel() {
  m_cancel.store(true);
  std::lock_guard lock(m_mutex);
  m_cv.notify_all();
}

std::vector<std::string> LogTail::lines() const {
  std::lock_guard lock(m_mutex);
  return {m_lines.begin(), m_lines.end()};
}

std::string LogTail::error() const {
  std::lock_guard lock(m_mutex);
  return m_error;
}

std::optional<std::chrono::steady_clock::time_point> LogTail::last_line_at() const {
  std::lock_guard lock(m_mutex);
  return m_last_line_at;
}

void LogTail::take_line(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (m_options.on_line) m_options.on_line(line);
  const bool print = !m_options.filter || m_options.filter(line);
  {
    std::lock_guard lock(m_mutex);
    m_last_line_at = m_clock.steady_now();
    m_lines.emplace_back(m_options.timestamps ? without_timestamp(line) : std::string_view(line));
    while (m_lines.size() > m_options.keep_lines) m_lines.pop_front();
  }
  if (print) m_console.log_line(m_options.prefix + line);
}

LogTail::Verdict LogTail::await_verdict() {
  {
    std::lock_guard lock(m_mutex);
    if (m_verdict == Verdict::finish) return Verdict::finish;
    m_verdict = Verdict::none;
    m_ended = true;
  }
  if (m_options.on_change) m_options.on_change();
  std::unique_lock lock(m_mutex);
  while (m_verdict == Verdict::none && !m_cancel.load()) m_cv.wait_for(lock, k_cancel_poll);
  m_ended = false;
  return m_cancel.load() ? Verdict::finish : m_verdict;
}

void LogTail::read(kube::ApiClient& api) {
  std::string partial;
  std::uint64_t taken = 0;  // bytes of the run's log printed (or held in `partial`)
  std::uint64_t hash = k_fnv_basis;
  const auto flush_lines = [&](bool all) {
    std::size_t start = 0;
    for (auto nl = partial.find('\n'); nl != std::string::npos; nl = partial.find('\n', start)) {
      take_line(partial.substr(start, nl - start));
      start = nl + 1;
    }
    partial.erase(0, start);
    if (all && !partial.empty()) {
      take_line(std::move(partial));
      partial.clear();
    }
  };
  auto retry = k_first_retry;
  while (!m_cancel.load()) {
    std::uint64_t seen = 0;
    std::uint64_t check = k_fnv_basis;
    bool other_run = false;
    bool fresh = false;
    auto streamed = api.stream_raw(
        m_options.path,
        [&](std::string_view chunk) {
          if (seen < taken) {  // a reopened stream: skip what was printed, if it is the same
            const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), taken - seen));
            check = fnv(check, chunk.substr(0, n));
            seen += n;
            chunk.remove_prefix(n);
            if (seen == taken && check != hash) {
              other_run = true;
              return false;
            }
          }
          if (!chunk.empty()) {
            fresh = true;
            hash = fnv(hash, chunk);
            taken += chunk.size();
            seen += chunk.size();
            partial.append(chunk);
            flush_lines(false);
          }
          return !m_cancel.load();
        },
        &m_cancel);
    if (m_cancel.load() || other_run) break;
    {
      std::lock_guard lock(m_mutex);
      m_error = streamed ? std::string() : streamed.error().message;
    }
    if (fresh) retry = k_first_retry;
    if (await_verdict() != Verdict::resume) break;
    for (auto waited = std::chrono::milliseconds(0); waited < retry && !m_cancel.load();
         waited += k_cancel_poll)
      std::this_thread::sleep_for(k_cancel_poll);
    retry = std::min(retry * 2, k_max_retry);
    m_reopens.fetch_add(1);
  }
  flush_lines(true);
  m_done.store(true);
  if (m_options.on_change) m_options.on_change();
}

}  // namespace kpt::plugin
