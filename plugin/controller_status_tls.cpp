#include "plugin/controller_status_tls.hpp"

#include "apiserver/certs.hpp"
#include "util/base64.hpp"
#include "util/file_io.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

namespace kpt::plugin {

namespace {

const kube::ResourceRef k_secrets{"", "v1", "secrets", "Secret", true};

Expected<controller::StatusServerTls> from_dir(const std::string& dir) {
  controller::StatusServerTls tls;
  for (const auto& [file, into] : {std::pair{"tls.crt", &tls.cert_pem}, std::pair{"tls.key", &tls.key_pem},
                                   std::pair{"ca.crt", &tls.ca_pem}}) {
    auto text = util::read_file(dir + "/" + file);
    if (!text) return text.error().context("reading the status server's certificate");
    *into = std::move(*text);
  }
  return tls;
}

Expected<controller::StatusServerTls> generated(const std::string& host) {
  auto certs = apiserver::generate_certificates({host}, {});
  if (!certs) return certs.error().context("generating the status server's certificate");
  return controller::StatusServerTls{certs->cert_pem, certs->key_pem, certs->ca_cert_pem};
}

std::optional<controller::StatusServerTls> from_secret(const nlohmann::json& secret) {
  controller::StatusServerTls tls;
  for (const auto& [key, into] : {std::pair{"tls.crt", &tls.cert_pem}, std::pair{"tls.key", &tls.key_pem},
                                  std::pair{"ca.crt", &tls.ca_pem}}) {
    const auto value = secret.value("/data"_json_pointer, nlohmann::json::object()).value(key, std::string{});
    auto decoded = util::base64_decode(value);
    if (!decoded || decoded->empty()) return std::nullopt;
    *into = std::move(*decoded);
  }
  return tls;
}

}  // namespace

Expected<controller::StatusServerTls> status_server_tls(kube::ApiClient& api, const std::string& cert_dir,
                                                        const std::string& in_cluster_namespace,
                                                        const std::string& secret, const std::string& host) {
  if (!cert_dir.empty()) return from_dir(cert_dir);
  if (in_cluster_namespace.empty()) return generated(host);
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto existing = api.get(k_secrets, in_cluster_namespace, secret);
    if (existing) {
      if (auto tls = from_secret(*existing)) return *tls;
      return make_error(ErrorCode::config, "the Secret " + util::quote(in_cluster_namespace + "/" + secret) +
                                               " lacks tls.crt, tls.key or ca.crt");
    }
    if (!kube::is_not_found(existing.error()))
      return existing.error().context("reading Secret " + util::quote(secret));
    auto tls = generated(host);
    if (!tls) return tls.error();
    const nlohmann::json object = {{"apiVersion", "v1"},
                                   {"kind", "Secret"},
                                   {"type", "kubernetes.io/tls"},
                                   {"metadata",
                                    {{"name", secret},
                                     {"namespace", in_cluster_namespace},
                                     {"labels", {{"app.kubernetes.io/name", "kubectl-pytorch-controller"}}}}},
                                   {"data",
                                    {{"tls.crt", util::base64_encode(tls->cert_pem)},
                                     {"tls.key", util::base64_encode(tls->key_pem)},
                                     {"ca.crt", util::base64_encode(tls->ca_pem)}}}};
    auto created = api.create(k_secrets, in_cluster_namespace, object);
    if (created) return tls;
    // Another replica created it first: take theirs.
    if (!kube::is_already_exists(created.error()))
      return created.error().context("creating Secret " + util::quote(secret));
  }
  return make_error(ErrorCode::internal,
                    "the Secret " + util::quote(secret) + " could not be read or created");
}

}  // namespace kpt::plugin
