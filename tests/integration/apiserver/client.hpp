#pragma once

#include "apiserver/api_server.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kpt::apiserver::testing {

/// The bearer token a Harness's server requires and its client sends.
inline constexpr const char* k_test_token = "test-token-123";

/// One HTTP answer, decoded.
struct Reply {
  int status = 0;
  nlohmann::json body;  ///< parsed JSON (null when the body is not JSON)
  std::string raw;
  std::multimap<std::string, std::string> headers;
  [[nodiscard]] std::string header(const std::string& name) const;
  [[nodiscard]] std::vector<std::string> all(const std::string& name) const;
};

/// A tiny HTTPS client for the in-process server: verifies its CA, sends its token.
class Client {
 public:
  Client(const ApiServer& server, std::string token);
  ~Client();
  Reply get(const std::string& path, const std::string& accept = "application/json");
  /// A GET offering `accept_encoding`; the reply's body is decoded, its Content-Encoding kept.
  Reply get_encoded(const std::string& path, const std::string& accept_encoding);
  Reply post(const std::string& path, const nlohmann::json& body);
  Reply put(const std::string& path, const nlohmann::json& body);
  Reply patch(const std::string& path, const std::string& body, const std::string& content_type);
  Reply del(const std::string& path, const std::string& body = {});
  /// Lines of a watch stream (the server ends it at timeoutSeconds).
  std::vector<nlohmann::json> watch(const std::string& path_and_query);

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

/// A started server with a token, plus a client; every test gets its own.
struct Harness {
  explicit Harness(ServerOptions options = {});
  ~Harness();
  std::unique_ptr<ApiServer> server;
  std::unique_ptr<Client> client;
};

nlohmann::json pod(const std::string& name, const nlohmann::json& labels = nlohmann::json::object());
/// The small PyTorchJob CRD fixture (testdata/crds/pytorchjob-small.yaml) as JSON.
nlohmann::json small_crd();

}  // namespace kpt::apiserver::testing
