#include "controller/status_handler.hpp"

#include "controller/feature_gates.hpp"
#include "controller/logger.hpp"
#include "tests/support/fake_api_client.hpp"
#include "util/clock.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

namespace kpt::controller {
namespace {

using nlohmann::json;
namespace tj = model::trainjob;

/// Tokens are "<namespace>:<audience>"; "broken" makes the review itself fail.
class FakeReviewer final : public TokenReviewer {
 public:
  Expected<std::optional<std::string>> review(const std::string& token,
                                              const std::string& audience) override {
    asked.push_back(audience);
    if (token == "broken") return make_error(ErrorCode::io, "connection refused");
    const auto colon = token.find(':');
    if (colon == std::string::npos || token.substr(colon + 1) != audience)
      return std::optional<std::string>{};
    return std::optional<std::string>{token.substr(0, colon)};
  }
  std::vector<std::string> asked;
};

const char* k_path = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/ml/trainjobs/mnist/status";
const char* k_token = "Bearer ml:trainer.kubeflow.org/v1alpha1/namespaces/ml/trainjobs/mnist/status";
const char* k_body =
    R"({"trainerStatus":{"progressPercentage":42,"estimatedRemainingSeconds":120,"metrics":[{"name":"loss","value":"0.123"}],"lastUpdatedTime":"2026-12-01T10:00:00Z"}})";

class StatusHandlerTest : public ::testing::Test {
 protected:
  StatusHandlerTest() : log(logs, LogFormat::text, clock), handler(api, reviewer, log) {
    api.put(kube::resources::trainjobs(), {{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                                           {"kind", "TrainJob"},
                                           {"metadata", {{"name", "mnist"}, {"namespace", "ml"}}},
                                           {"status", {{"conditions", json::array()}}}});
    api.put(kube::resources::pytorchjobs(), {{"apiVersion", "kubeflow.org/v1"},
                                             {"kind", "PyTorchJob"},
                                             {"metadata", {{"name", "mnist"}, {"namespace", "ml"}}}});
  }

  tj::StatusAnswer post(const std::string& path, const std::string& auth, const std::string& body) {
    StatusRequest r;
    r.method = "POST";
    r.path = path;
    r.authorization = auth;
    r.content_length = static_cast<long long>(body.size());
    r.body = body;
    return handler.handle(r);
  }

  testing::FakeApiClient api;
  FakeReviewer reviewer;
  util::RealClock clock;
  std::ostringstream logs;
  Logger log;
  StatusHandler handler;
};

TEST_F(StatusHandlerTest, AnUpdateIsServerSideAppliedToTheStatusAndEchoed) {
  const auto answer = post(k_path, k_token, k_body);
  EXPECT_EQ(answer.code, 200);
  EXPECT_EQ(answer.body,
            "{\"trainerStatus\":{\"progressPercentage\":42,\"estimatedRemainingSeconds\":120,\"metrics\":[{"
            "\"name\":"
            "\"loss\",\"value\":\"0.123\"}],\"lastUpdatedTime\":\"2026-12-01T10:00:00Z\"}}\n");
  const auto calls = api.calls();
  ASSERT_EQ(calls.back().verb, "patch");
  EXPECT_EQ(calls.back().resource, "trainjobs");
  EXPECT_EQ(calls.back().subresource, "status");
  EXPECT_EQ(calls.back().field_manager, "trainer-status");
  EXPECT_TRUE(calls.back().force);
  EXPECT_EQ(api.object("trainjobs", "ml", "mnist")["status"]["trainerStatus"],
            json::parse(R"({"progressPercentage":42,"estimatedRemainingSeconds":120,
              "metrics":[{"name":"loss","value":"0.123"}],"lastUpdatedTime":"2026-12-01T10:00:00Z"})"));
  EXPECT_EQ(reviewer.asked,
            std::vector<std::string>{"trainer.kubeflow.org/v1alpha1/namespaces/ml/trainjobs/mnist/status"});
}

TEST_F(StatusHandlerTest, EveryRefusalIsTrainersAnswerInTrainersOrder) {
  struct Case {
    const char* name;
    std::string method;
    std::string path;
    std::string auth;
    std::string body;
    std::optional<long long> length;
    bool over_limit;
    tj::StatusAnswer want;
  };
  const std::string other_job = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/ml/trainjobs/other/status";
  const Case cases[] = {
      {"a declared body over 64 KiB, before the route", "POST", "/nowhere", "", "", 65537, false,
       tj::status_payload_too_large()},
      {"another path", "POST", "/healthz", k_token, k_body, std::nullopt, false,
       tj::status_route_not_found()},
      {"GET", "GET", k_path, k_token, "", std::nullopt, false, tj::status_route_not_found()},
      {"no token", "POST", k_path, "", k_body, std::nullopt, false, tj::status_forbidden()},
      {"not bearer", "POST", k_path, "Basic ml:x", k_body, std::nullopt, false, tj::status_forbidden()},
      {"another job's token", "POST", other_job, k_token, k_body, std::nullopt, false,
       tj::status_forbidden()},
      {"another namespace's account", "POST", k_path,
       "Bearer other:trainer.kubeflow.org/v1alpha1/namespaces/ml/trainjobs/mnist/status", k_body,
       std::nullopt, false, tj::status_forbidden()},
      {"a review that fails", "POST", k_path, "Bearer broken", k_body, std::nullopt, false,
       tj::status_internal_error()},
      {"a malformed body", "POST", k_path, k_token, "{\"trainerStatus\":", std::nullopt, false,
       tj::status_invalid_payload()},
      {"a chunked body over 64 KiB", "POST", k_path, k_token, "{", std::nullopt, true,
       tj::status_invalid_payload()},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    StatusRequest r{c.method, c.path, c.auth, c.length, c.body, c.over_limit};
    EXPECT_EQ(handler.handle(r), c.want);
  }
  EXPECT_EQ(api.count("patch"), 0);
}

TEST_F(StatusHandlerTest, AnEmptyRequestWritesNothing) {
  EXPECT_EQ(post(k_path, k_token, "{}"), (tj::StatusAnswer{200, "{}\n"}));
  EXPECT_EQ(api.count("patch"), 0);
}

TEST_F(StatusHandlerTest, TheApiServersAnswersBecomeTrainers) {
  api.fail_next(
      "patch", 422, "Invalid", 1,
      "TrainJob.trainer.kubeflow.org \"mnist\" is invalid: status.trainerStatus.progressPercentage: Invalid "
      "value: 101: status.trainerStatus.progressPercentage in body should be less than or equal to 100");
  EXPECT_EQ(post(k_path, k_token, k_body),
            tj::status_rejected(
                "TrainJob.trainer.kubeflow.org \"mnist\" is invalid: "
                "status.trainerStatus.progressPercentage: Invalid value: 101: "
                "status.trainerStatus.progressPercentage in body should be less than or equal to 100"));
  api.fail_next("patch", 500, "InternalError", 1, "etcd is gone");
  EXPECT_EQ(post(k_path, k_token, k_body), tj::status_internal_error());
  const std::string gone = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/ml/trainjobs/gone/status";
  EXPECT_EQ(post(gone, "Bearer ml:trainer.kubeflow.org/v1alpha1/namespaces/ml/trainjobs/gone/status", k_body),
            tj::status_job_not_found());
}

TEST_F(StatusHandlerTest, APyTorchJobGetsItsAnnotationsAfterTheCrdRulesAreChecked) {
  const std::string path = "/apis/kubeflow.org/v1/namespaces/ml/pytorchjobs/mnist/status";
  const std::string auth = "Bearer ml:kubeflow.org/v1/namespaces/ml/pytorchjobs/mnist/status";
  EXPECT_EQ(post(path, auth, k_body).code, 200);
  const json annotations = api.object("pytorchjobs", "ml", "mnist")["metadata"]["annotations"];
  EXPECT_EQ(annotations["kubectl-pytorch.kubeflow.org/progress-percentage"], "42");
  EXPECT_EQ(json::parse(annotations["kubectl-pytorch.kubeflow.org/trainer-status"]
                            .get<std::string>())["metrics"][0]["value"],
            "0.123");
  EXPECT_EQ(post(path, auth, R"({"trainerStatus":{"progressPercentage":101}})"),
            tj::status_rejected(
                "PyTorchJob.kubeflow.org \"mnist\" is invalid: [status.trainerStatus.progressPercentage: "
                "Invalid value: 101: status.trainerStatus.progressPercentage in body should be less "
                "than or equal to 100, status.trainerStatus: Invalid value: \"object\": "
                "lastUpdatedTime is required when trainerStatus is present]"));
}

TEST_F(StatusHandlerTest, TheTokenReviewAsksForTheJobsAudienceAndReadsTheAccountsNamespace) {
  ApiTokenReviewer real(api);
  api.set_raw_handler([](const std::string& path, const json& body) -> Expected<json> {
    EXPECT_EQ(path, "/apis/authentication.k8s.io/v1/tokenreviews");
    json out = body;
    const bool ok = body["spec"]["token"] == "good";
    out["status"] = {{"authenticated", ok},
                     {"user", {{"username", "system:serviceaccount:ml:default"}}},
                     {"audiences", body["spec"]["audiences"]}};
    return out;
  });
  EXPECT_EQ(real.review("good", "aud").value(), std::optional<std::string>("ml"));
  EXPECT_EQ(real.review("bad", "aud").value(), std::optional<std::string>());
}

TEST(FeatureGates, TrainJobStatusIsTheOneGateAndOffByDefault) {
  EXPECT_FALSE(parse_feature_gates("").value().train_job_status);
  EXPECT_TRUE(parse_feature_gates("TrainJobStatus=true").value().train_job_status);
  EXPECT_TRUE(parse_feature_gates(" TrainJobStatus = T ").value().train_job_status);
  EXPECT_FALSE(parse_feature_gates("TrainJobStatus=false", FeatureGates{true}).value().train_job_status);
  EXPECT_EQ(parse_feature_gates("Foo=true").error().message, "unrecognized feature gate: Foo");
  EXPECT_EQ(parse_feature_gates("TrainJobStatus=maybe").error().message,
            "invalid value of TrainJobStatus='maybe' in --feature-gates: use true or false");
  EXPECT_EQ(parse_feature_gates("TrainJobStatus").error().message,
            "missing bool value for 'TrainJobStatus' in --feature-gates");
}

}  // namespace
}  // namespace kpt::controller
