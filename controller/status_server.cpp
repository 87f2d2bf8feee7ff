#include "controller/status_server.hpp"

#include "controller/logger.hpp"
#include "controller/status_handler.hpp"

#include <httplib.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <charconv>
#include <optional>
#include <thread>

namespace kpt::controller {

namespace {

namespace tj = model::trainjob;

// The PEM chain and key into a server context: TLS 1.2 or newer, no compression, no renegotiation.
bool load_tls(SSL_CTX& ctx, const StatusServerTls& tls) {
  SSL_CTX_set_min_proto_version(&ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(&ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
  BIO* cert_bio = BIO_new_mem_buf(tls.cert_pem.data(), static_cast<int>(tls.cert_pem.size()));
  BIO* key_bio = BIO_new_mem_buf(tls.key_pem.data(), static_cast<int>(tls.key_pem.size()));
  X509* cert = PEM_read_bio_X509(cert_bio, nullptr, nullptr, nullptr);
  EVP_PKEY* key = PEM_read_bio_PrivateKey(key_bio, nullptr, nullptr, nullptr);
  BIO_free(cert_bio);
  BIO_free(key_bio);
  const bool ok = cert != nullptr && key != nullptr && SSL_CTX_use_certificate(&ctx, cert) == 1 &&
                  SSL_CTX_use_PrivateKey(&ctx, key) == 1 && SSL_CTX_check_private_key(&ctx) == 1;
  X509_free(cert);
  EVP_PKEY_free(key);
  ERR_clear_error();
  return ok;
}

std::optional<long long> content_length(const httplib::Request& req) {
  if (!req.has_header("Content-Length")) return std::nullopt;
  const std::string text = req.get_header_value("Content-Length");
  long long n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return n;
}

}  // namespace

struct StatusServer::State {
  std::unique_ptr<httplib::SSLServer> server;
  std::thread thread;
};

StatusServer::StatusServer() : m_state(std::make_unique<State>()) {}

StatusServer::~StatusServer() { stop(); }

Expected<int> StatusServer::start(const std::string& host, int port, const StatusServerTls& tls,
                                  StatusHandler& handler, Logger& log) {
  m_state->server = std::make_unique<httplib::SSLServer>([&tls](SSL_CTX& ctx) { return load_tls(ctx, tls); });
  auto& srv = *m_state->server;
  if (!srv.is_valid()) return make_error(ErrorCode::config, "loading the status server's certificate failed");
  srv.set_read_timeout(10);
  srv.set_write_timeout(10);
  srv.set_keep_alive_timeout(120);
  srv.set_payload_max_length(std::size_t{1} << 20);  // past this httplib answers 413 itself
  const auto answer = [&handler](const httplib::Request& req, httplib::Response& res,
                                 const httplib::ContentReader* reader) {
    StatusRequest r;
    r.method = req.method;
    r.path = req.path;
    r.authorization = req.get_header_value("Authorization");
    r.content_length = content_length(req);
    bool body_left = r.content_length.value_or(0) > 0;
    const bool declared_too_long =
        r.content_length && *r.content_length > static_cast<long long>(tj::k_status_body_limit);
    if (reader != nullptr && !declared_too_long) {
      (*reader)([&r](const char* data, std::size_t size) {
        if (r.body.size() + size > tj::k_status_body_limit) {
          r.body_over_limit = true;
          return false;
        }
        r.body.append(data, size);
        return true;
      });
      body_left = r.body_over_limit;
    }
    const auto a = handler.handle(r);
    res.status = a.code;
    res.set_content(a.body, "application/json");
    // What was not read of the body must not be taken for the next request.
    if (body_left) res.set_header("Connection", "close");
  };
  srv.Get(".*", [answer](const httplib::Request& req, httplib::Response& res) { answer(req, res, nullptr); });
  const auto with_body = [answer](const httplib::Request& req, httplib::Response& res,
                                  const httplib::ContentReader& reader) { answer(req, res, &reader); };
  srv.Post(".*", with_body);
  srv.Put(".*", with_body);
  srv.Patch(".*", with_body);
  srv.Delete(".*", with_body);
  srv.Options(".*",
              [answer](const httplib::Request& req, httplib::Response& res) { answer(req, res, nullptr); });
  const int bound = port == 0 ? srv.bind_to_any_port(host) : (srv.bind_to_port(host, port) ? port : -1);
  if (bound <= 0) {
    m_state->server.reset();
    return make_error(ErrorCode::io,
                      "the status server cannot listen on " + host + ":" + std::to_string(port));
  }
  m_state->thread = std::thread([this] { m_state->server->listen_after_bind(); });
  log.info("serving the TrainJob status endpoint (TrainJobStatus)",
           {{"addr", host + ":" + std::to_string(bound)}});
  return bound;
}

void StatusServer::stop() {
  if (!m_state->server) return;
  m_state->server->stop();
  if (m_state->thread.joinable()) m_state->thread.join();
  m_state->server.reset();
}

}  // namespace kpt::controller
