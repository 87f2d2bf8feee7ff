#include "apiserver/service_account_tokens.hpp"

#include "apiserver/certs.hpp"
#include "apiserver/status.hpp"
#include "util/base64.hpp"
#include "util/json_access.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <chrono>

namespace kpt::apiserver {

namespace {

using nlohmann::json;

constexpr std::int64_t k_default_seconds = 3600;
constexpr std::int64_t k_min_seconds = 600;  // kube-apiserver refuses shorter ones

std::string base64url(std::string_view data) {
  std::string out = util::base64_encode(data);
  for (char& c : out) c = c == '+' ? '-' : c == '/' ? '_' : c;
  while (!out.empty() && out.back() == '=') out.pop_back();
  return out;
}

std::optional<std::string> unbase64url(std::string text) {
  for (char& c : text) {
    if (c == '+' || c == '/' || c == '=') return std::nullopt;
    c = c == '-' ? '+' : c == '_' ? '/' : c;
  }
  while (text.size() % 4 != 0) text += '=';
  return util::base64_decode(text);
}

std::string hmac_sha256(const std::string& key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &size);
  return std::string(reinterpret_cast<const char*>(out), size);
}

std::int64_t epoch_seconds(util::Time t) { return t.time_since_epoch().count(); }

json unauthenticated(const json& review, const std::string& why) {
  json out = review;
  out["status"] = {{"authenticated", false}, {"user", json::object()}, {"error", why}};
  return out;
}

}  // namespace

ServiceAccountTokens::ServiceAccountTokens(const std::string& secret) {
  std::string seed = secret;
  if (seed.empty()) {
    auto random = generate_token();
    seed = random ? random.value() : "kubectl-pytorch";
  }
  unsigned char digest[SHA256_DIGEST_LENGTH];
  const std::string input = "kubectl-pytorch service account tokens\n" + seed;
  SHA256(reinterpret_cast<const unsigned char*>(input.data()), input.size(), digest);
  m_key.assign(reinterpret_cast<const char*>(digest), sizeof digest);
}

Expected<json> ServiceAccountTokens::request(const std::string& ns, const std::string& name, const json& body,
                                             util::Time now) const {
  if (!body.is_object()) return bad_request("the body of a TokenRequest must be an object");
  json spec = body.value("spec", json::object());
  if (!spec.is_object()) spec = json::object();
  const json seconds = spec.value("expirationSeconds", json(k_default_seconds));
  if (!seconds.is_number_integer() || seconds.get<std::int64_t>() < k_min_seconds) {
    return invalid("authentication.k8s.io", "TokenRequest", name,
                   {{"FieldValueInvalid",
                     "Invalid value: " + seconds.dump() + ": may not specify a duration less than 10 minutes",
                     "spec.expirationSeconds"}});
  }
  json audiences = spec.value("audiences", json::array());
  if (!audiences.is_array() || audiences.empty()) audiences = json::array({k_issuer});
  const std::int64_t iat = epoch_seconds(now);
  const std::int64_t exp = iat + seconds.get<std::int64_t>();
  json claims = {{"aud", audiences},
                 {"exp", exp},
                 {"iat", iat},
                 {"nbf", iat},
                 {"iss", k_issuer},
                 {"sub", "system:serviceaccount:" + ns + ":" + name},
                 {"kubernetes.io", {{"namespace", ns}, {"serviceaccount", {{"name", name}}}}}};
  const json bound = spec.value("boundObjectRef", json::object());
  if (bound.is_object() && util::string_at(bound, "kind") == "Pod") {
    claims["kubernetes.io"]["pod"] = {{"name", util::string_at(bound, "name")},
                                      {"uid", util::string_at(bound, "uid")}};
  }
  const std::string signing_input =
      base64url(json{{"alg", "HS256"}, {"typ", "JWT"}}.dump()) + "." + base64url(claims.dump());
  const std::string token = signing_input + "." + base64url(hmac_sha256(m_key, signing_input));
  json out = {{"apiVersion", "authentication.k8s.io/v1"},
              {"kind", "TokenRequest"},
              {"metadata", {{"name", name}, {"namespace", ns}, {"creationTimestamp", nullptr}}},
              {"spec", spec},
              {"status",
               {{"token", token},
                {"expirationTimestamp", util::format_time(util::Time(std::chrono::seconds(exp)))}}}};
  out["spec"]["audiences"] = audiences;
  out["spec"]["expirationSeconds"] = seconds;
  return out;
}

json ServiceAccountTokens::review(const json& body, util::Time now) const {
  json review = body.is_object() ? body : json::object();
  review["apiVersion"] = "authentication.k8s.io/v1";
  review["kind"] = "TokenReview";
  review["metadata"] = {{"creationTimestamp", nullptr}};
  const json spec = review.value("spec", json::object());
  const std::string token = spec.is_object() ? spec.value("token", std::string{}) : std::string{};
  const auto first = token.find('.');
  const auto second = first == std::string::npos ? first : token.find('.', first + 1);
  if (second == std::string::npos) return unauthenticated(review, "invalid bearer token");
  const std::string expected = base64url(hmac_sha256(m_key, std::string_view(token).substr(0, second)));
  const std::string given = token.substr(second + 1);
  if (given.size() != expected.size() || CRYPTO_memcmp(given.data(), expected.data(), given.size()) != 0)
    return unauthenticated(review, "invalid bearer token");
  const auto payload = unbase64url(token.substr(first + 1, second - first - 1));
  const json claims = payload ? json::parse(*payload, nullptr, false) : json();
  if (!claims.is_object()) return unauthenticated(review, "invalid bearer token");
  const std::int64_t t = epoch_seconds(now);
  if (claims.value("exp", std::int64_t{0}) <= t || claims.value("nbf", t) > t)
    return unauthenticated(review, "invalid bearer token, token has expired");
  json wanted = spec.value("audiences", json::array());
  if (!wanted.is_array() || wanted.empty()) wanted = json::array({k_issuer});
  const json token_audiences = claims.value("aud", json::array());
  json valid = json::array();
  for (const auto& a : wanted) {
    if (std::find(token_audiences.begin(), token_audiences.end(), a) != token_audiences.end())
      valid.push_back(a);
  }
  if (valid.empty())
    return unauthenticated(review, "token audiences " + token_audiences.dump() +
                                       " is invalid for the target audiences " + wanted.dump());
  const json k8s = claims.value("kubernetes.io", json::object());
  const std::string ns = util::string_at(k8s, "namespace");
  const std::string sa = k8s.value("/serviceaccount/name"_json_pointer, std::string{});
  json user = {{"username", "system:serviceaccount:" + ns + ":" + sa},
               {"groups", json::array({"system:serviceaccounts", "system:serviceaccounts:" + ns,
                                       "system:authenticated"})}};
  if (k8s.contains("pod")) {
    user["extra"] = {{"authentication.kubernetes.io/pod-name",
                      json::array({util::string_at(util::member(k8s, "pod"), "name")})},
                     {"authentication.kubernetes.io/pod-uid",
                      json::array({util::string_at(util::member(k8s, "pod"), "uid")})}};
  }
  review["status"] = {{"authenticated", true}, {"user", user}, {"audiences", valid}};
  return review;
}

}  // namespace kpt::apiserver
