#include "client.hpp"

#include "yaml/manifest_reader.hpp"
#include "yaml/node_json.hpp"

#include <httplib.h>
#include <openssl/pem.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kpt::apiserver::testing {

namespace {

Reply decode(const httplib::Result& r) {
  Reply out;
  if (!r) throw std::runtime_error("request failed: " + httplib::to_string(r.error()));
  out.status = r->status;
  out.raw = r->body;
  for (const auto& [k, v] : r->headers) out.headers.emplace(k, v);
  out.body = nlohmann::json::parse(r->body, nullptr, false);
  if (out.body.is_discarded()) out.body = nullptr;
  return out;
}

}  // namespace

std::string Reply::header(const std::string& name) const {
  for (const auto& [k, v] : headers) {
    if (httplib::detail::ci()(k, name) == false && httplib::detail::ci()(name, k) == false) return v;
  }
  return {};
}

std::vector<std::string> Reply::all(const std::string& name) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : headers) {
    if (!httplib::detail::ci()(k, name) && !httplib::detail::ci()(name, k)) out.push_back(v);
  }
  return out;
}

struct Client::Impl {
  std::unique_ptr<httplib::SSLClient> cli;
  httplib::Headers auth;
};

Client::Client(const ApiServer& server, std::string token) : m_impl(std::make_unique<Impl>()) {
  m_impl->cli = std::make_unique<httplib::SSLClient>("127.0.0.1", server.port());
  const auto& ca_pem = server.certificates().ca_cert_pem;
  BIO* bio = BIO_new_mem_buf(ca_pem.data(), static_cast<int>(ca_pem.size()));
  X509* ca = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, ca);
  X509_free(ca);
  m_impl->cli->set_ca_cert_store(store);
  m_impl->cli->enable_server_certificate_verification(true);
  m_impl->cli->set_read_timeout(std::chrono::seconds(20));
  if (!token.empty()) m_impl->auth = {{"Authorization", "Bearer " + token}};
}

Client::~Client() = default;

Reply Client::get(const std::string& path, const std::string& accept) {
  auto h = m_impl->auth;
  h.emplace("Accept", accept);
  return decode(m_impl->cli->Get(path.c_str(), h));
}

Reply Client::get_encoded(const std::string& path, const std::string& accept_encoding) {
  auto h = m_impl->auth;
  h.emplace("Accept", "application/json");
  h.emplace("Accept-Encoding", accept_encoding);
  return decode(m_impl->cli->Get(path.c_str(), h));
}

Reply Client::post(const std::string& path, const nlohmann::json& body) {
  return decode(m_impl->cli->Post(path.c_str(), m_impl->auth, body.dump(), "application/json"));
}

Reply Client::put(const std::string& path, const nlohmann::json& body) {
  return decode(m_impl->cli->Put(path.c_str(), m_impl->auth, body.dump(), "application/json"));
}

Reply Client::patch(const std::string& path, const std::string& body, const std::string& content_type) {
  return decode(m_impl->cli->Patch(path.c_str(), m_impl->auth, body, content_type.c_str()));
}

Reply Client::del(const std::string& path, const std::string& body) {
  return decode(m_impl->cli->Delete(path.c_str(), m_impl->auth, body, "application/json"));
}

std::vector<nlohmann::json> Client::watch(const std::string& path_and_query) {
  std::vector<nlohmann::json> events;
  std::string buffer;
  auto r = m_impl->cli->Get(path_and_query.c_str(), m_impl->auth, [&](const char* data, std::size_t len) {
    buffer.append(data, len);
    for (auto nl = buffer.find('\n'); nl != std::string::npos; nl = buffer.find('\n')) {
      events.push_back(nlohmann::json::parse(buffer.substr(0, nl)));
      buffer.erase(0, nl + 1);
    }
    return true;
  });
  if (!r) throw std::runtime_error("watch failed: " + httplib::to_string(r.error()));
  // An error answer (410 Gone before the stream starts) is one Status object, without a newline.
  if (r->status != 200)
    events.push_back(nlohmann::json::parse(buffer.empty() ? r->body : buffer, nullptr, false));
  return events;
}

Harness::Harness(ServerOptions options) {
  options.token = k_test_token;
  server = std::make_unique<ApiServer>(std::move(options));
  auto port = server->start(0);
  if (!port) throw std::runtime_error(port.error().message);
  client = std::make_unique<Client>(*server, k_test_token);
}

Harness::~Harness() {
  client.reset();
  server->stop();
}

nlohmann::json pod(const std::string& name, const nlohmann::json& labels) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"spec", {{"containers", {{{"name", "main"}, {"image", "busybox"}}}}}}};
}

nlohmann::json small_crd() {
  std::ifstream in(std::string(KPT_SOURCE_DIR) + "/testdata/crds/pytorchjob-small.yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  auto read = yaml::read_manifests("pytorchjob-small.yaml", std::make_shared<const std::string>(ss.str()));
  if (read.documents.empty()) throw std::runtime_error("cannot read the CRD fixture");
  return yaml::to_json(read.documents.front().root);
}

}  // namespace kpt::apiserver::testing
