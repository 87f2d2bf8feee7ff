#include "apiserver/service_account_tokens.hpp"

#include <gtest/gtest.h>

namespace kpt::apiserver {
namespace {

using nlohmann::json;

const util::Time k_now = *util::parse_time("2026-12-01T10:00:00Z");

json token_request(json spec) {
  return {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"}, {"spec", spec}};
}

json review(const std::string& token, json audiences) {
  return {{"apiVersion", "authentication.k8s.io/v1"},
          {"kind", "TokenReview"},
          {"spec", {{"token", token}, {"audiences", audiences}}}};
}

TEST(ServiceAccountTokens, ATokenIsValidForItsAudienceUntilItExpires) {
  const ServiceAccountTokens tokens("secret");
  const auto answer = tokens.request(
      "ml", "default",
      token_request(
          {{"audiences", {"aud"}},
           {"expirationSeconds", 3600},
           {"boundObjectRef", {{"kind", "Pod"}, {"apiVersion", "v1"}, {"name", "p"}, {"uid", "u"}}}}),
      k_now);
  ASSERT_TRUE(answer);
  EXPECT_EQ((*answer)["status"]["expirationTimestamp"], "2026-12-01T11:00:00Z");
  const std::string token = (*answer)["status"]["token"];
  const json ok =
      tokens.review(review(token, {"other", "aud"}), k_now + std::chrono::seconds(3599))["status"];
  EXPECT_EQ(ok["authenticated"], true);
  EXPECT_EQ(ok["audiences"], json::array({"aud"}));
  EXPECT_EQ(ok["user"]["username"], "system:serviceaccount:ml:default");
  EXPECT_EQ(ok["user"]["extra"]["authentication.kubernetes.io/pod-name"], json::array({"p"}));
  struct Case {
    const char* name;
    std::string token;
    json audiences;
    util::Time at;
    const char* error;
  };
  std::string tampered = token;
  tampered[tampered.find('.') + 2] ^= 1;
  const Case refused[] = {
      {"another audience",
       token,
       {"other"},
       k_now,
       "token audiences [\"aud\"] is invalid for the target audiences [\"other\"]"},
      {"the issuer's audience by default", token, json::array(), k_now,
       "token audiences [\"aud\"] is invalid for the target audiences "
       "[\"https://kubernetes.default.svc.cluster.local\"]"},
      {"expired",
       token,
       {"aud"},
       k_now + std::chrono::seconds(3600),
       "invalid bearer token, token has expired"},
      {"tampered claims", tampered, {"aud"}, k_now, "invalid bearer token"},
      {"not a JWT", "abc", {"aud"}, k_now, "invalid bearer token"},
      {"another server's",
       ServiceAccountTokens("other")
           .request("ml", "default", token_request({{"audiences", {"aud"}}}), k_now)
           .value()["status"]["token"],
       {"aud"},
       k_now,
       "invalid bearer token"},
  };
  for (const auto& c : refused) {
    SCOPED_TRACE(c.name);
    const json status = tokens.review(review(c.token, c.audiences), c.at)["status"];
    EXPECT_EQ(status["authenticated"], false);
    EXPECT_EQ(status["error"], c.error);
  }
}

TEST(ServiceAccountTokens, RequestsDefaultAsKubeApiserverAndRefuseShortLives) {
  const ServiceAccountTokens tokens("secret");
  const auto answer = tokens.request("ml", "sa", token_request(json::object()), k_now);
  ASSERT_TRUE(answer);
  EXPECT_EQ((*answer)["spec"]["audiences"], json::array({"https://kubernetes.default.svc.cluster.local"}));
  EXPECT_EQ((*answer)["spec"]["expirationSeconds"], 3600);
  const auto shortlived = tokens.request("ml", "sa", token_request({{"expirationSeconds", 599}}), k_now);
  ASSERT_FALSE(shortlived);
  EXPECT_EQ(shortlived.error().http_status, 422);
  EXPECT_EQ(shortlived.error().message,
            "TokenRequest.authentication.k8s.io \"sa\" is invalid: spec.expirationSeconds: Invalid value: "
            "599: may not "
            "specify a duration less than 10 minutes");
}

}  // namespace
}  // namespace kpt::apiserver
