#include "controller/health_server.hpp"

#include "controller/logger.hpp"
#include "controller/metrics.hpp"
#include "util/strings.hpp"

#include <httplib.h>

#include <thread>

namespace kpt::controller {

struct HealthServer::State {
  httplib::Server http;
  std::thread thread;
};

HealthServer::HealthServer() : m_state(std::make_unique<State>()) {}

HealthServer::~HealthServer() { stop(); }

Expected<int> HealthServer::start(const std::string& addr, std::function<Health()> health,
                                  const Metrics& metrics, Logger& log) {
  auto& http = m_state->http;
  http.Get("/healthz", [health](const httplib::Request&, httplib::Response& res) {
    const Health h = health();
    res.status = h.live ? 200 : 503;
    res.set_content(h.text, "text/plain");
  });
  http.Get("/readyz", [health](const httplib::Request&, httplib::Response& res) {
    const Health h = health();
    res.status = h.ready ? 200 : 503;
    res.set_content(h.text, "text/plain");
  });
  http.Get("/metrics", [&metrics](const httplib::Request&, httplib::Response& res) {
    res.set_content(metrics.render(), "text/plain; version=0.0.4");
  });
  const auto colon = addr.rfind(':');
  std::string host = colon == std::string::npos ? "" : addr.substr(0, colon);
  const std::string port_text = colon == std::string::npos ? addr : addr.substr(colon + 1);
  int port = -1;
  try {
    port = std::stoi(port_text);
  } catch (const std::exception&) {
    return make_error(ErrorCode::usage, "cannot listen on " + util::quote(addr));
  }
  if (host.empty()) host = "0.0.0.0";
  const int bound = port == 0 ? http.bind_to_any_port(host) : (http.bind_to_port(host, port) ? port : -1);
  if (bound < 0) return make_error(ErrorCode::io, "cannot listen on " + util::quote(addr));
  m_state->thread = std::thread([this] { m_state->http.listen_after_bind(); });
  log.info("serving health and metrics", {{"addr", host + ":" + std::to_string(bound)}});
  return bound;
}

void HealthServer::stop() {
  if (!m_state->thread.joinable()) return;
  m_state->http.stop();
  m_state->thread.join();
}

}  // namespace kpt::controller
