#pragma once

#include "util/expected.hpp"
#include "util/time.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace kpt::apiserver {

/// Service account tokens of the embedded API server, for the kubelet's projected
/// `serviceAccountToken` volumes: TokenRequest (POST .../serviceaccounts/NAME/token) issues a JWT
/// with the claims kube-apiserver puts in one (iss, sub, aud, exp, iat, nbf, kubernetes.io:
/// namespace, service account, bound pod), and TokenReview (authentication.k8s.io/v1) checks one.
/// As only this server ever verifies them, they are signed with HS256 and a key derived from the
/// server's own secret, so that they stay valid across restarts of the local cluster.
class ServiceAccountTokens {
 public:
  /// `secret`: what the key is derived from (the server's bearer token); empty: a random key.
  explicit ServiceAccountTokens(const std::string& secret = {});

  /// The issuer and default audience (kube-apiserver's in-cluster default).
  static constexpr const char* k_issuer = "https://kubernetes.default.svc.cluster.local";

  /// Answers a TokenRequest for service account `name` of `ns` at `now`: the request with
  /// status.token and status.expirationTimestamp (spec.expirationSeconds defaults to 3600, at
  /// least 600; spec.audiences defaults to the issuer). Errors are the API server's 400/422.
  Expected<nlohmann::json> request(const std::string& ns, const std::string& name, const nlohmann::json& body,
                                   util::Time now) const;

  /// Answers a TokenReview at `now`: status.authenticated, the user (system:serviceaccount:NS:NAME,
  /// its groups, the bound pod in extra) and the audiences the token is valid for among the ones
  /// asked (the issuer when none); authenticated false with an error otherwise.
  nlohmann::json review(const nlohmann::json& body, util::Time now) const;

 private:
  std::string m_key;
};

}  // namespace kpt::apiserver
