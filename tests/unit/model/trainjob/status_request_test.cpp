#include "model/trainjob/status_request.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::model::trainjob {
namespace {

using nlohmann::json;

util::Time at(const char* text) { return *util::parse_time(text); }

TEST(StatusRequest, BodiesDecodeAsGoDecodesThemIntoTheRequestType) {
  TrainerStatus full;
  full.progress_percentage = 42;
  full.estimated_remaining_seconds = 120;
  full.metrics = {{"loss", "0.123"}, {"accuracy", "0.95"}};
  full.last_updated_time = at("2026-12-01T10:00:00Z");
  struct Case {
    const char* name;
    std::string body;
    std::optional<StatusUpdate> want;  // nullopt: 422
  };
  const Case cases[] = {
      {"the upstream e2e client's body",
       R"({"trainerStatus":{"progressPercentage":42,"estimatedRemainingSeconds":120,"metrics":[{"name":"loss","value":"0.123"},{"name":"accuracy","value":"0.95"}],"lastUpdatedTime":"2026-12-01T10:00:00+00:00"}})",
       StatusUpdate{full}},
      {"keys in any case, unknown ones ignored, what follows the value unread",
       R"( {"TRAINERSTATUS":{"ProgressPercentage":42,"estimatedremainingseconds":120,"Metrics":[{"NAME":"loss","Value":"0.123"},{"name":"accuracy","value":"0.95"}],"lastUpdatedTime":"2026-12-01T10:00:00.123456Z","extra":[1]},"other":1} trailing {)",
       StatusUpdate{full}},
      {"an empty request", "{}", StatusUpdate{}},
      {"null trainerStatus", R"({"trainerStatus":null})", StatusUpdate{}},
      {"a null body", "null", StatusUpdate{}},
      {"null fields are unset",
       R"({"trainerStatus":{"progressPercentage":null,"metrics":null,"lastUpdatedTime":null}})",
       StatusUpdate{TrainerStatus{}}},
      {"empty body", "", std::nullopt},
      {"syntax error", R"({"trainerStatus":{)", std::nullopt},
      {"a float percentage", R"({"trainerStatus":{"progressPercentage":42.0}})", std::nullopt},
      {"an exponent", R"({"trainerStatus":{"progressPercentage":1e2}})", std::nullopt},
      {"a string percentage", R"({"trainerStatus":{"progressPercentage":"42"}})", std::nullopt},
      {"over int32", R"({"trainerStatus":{"estimatedRemainingSeconds":2147483648}})", std::nullopt},
      {"a number as metric value", R"({"trainerStatus":{"metrics":[{"name":"loss","value":0.5}]}})",
       std::nullopt},
      {"metrics not a list", R"({"trainerStatus":{"metrics":{"name":"loss"}}})", std::nullopt},
      {"a naive timestamp", R"({"trainerStatus":{"lastUpdatedTime":"2026-12-01T10:00:00"}})", std::nullopt},
      {"a timestamp number", R"({"trainerStatus":{"lastUpdatedTime":1}})", std::nullopt},
      {"an array body", "[]", std::nullopt},
      {"trainerStatus a string", R"({"trainerStatus":"x"})", std::nullopt},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto got = decode_status_update(c.body);
    ASSERT_EQ(got.has_value(), c.want.has_value()) << (got ? "" : got.error().message);
    if (got) {
      EXPECT_EQ(*got, *c.want);
    }
  }
}

TEST(StatusRequest, NegativeAndOutOfRangeValuesDecodeForTheApiServerToRefuse) {
  const auto got =
      decode_status_update(R"({"trainerStatus":{"progressPercentage":101,"estimatedRemainingSeconds":-1}})");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->trainer_status->progress_percentage, 101);
  EXPECT_EQ(got->trainer_status->estimated_remaining_seconds, -1);
}

TEST(StatusRequest, SuccessEchoesTheRequestAsGoEncodesIt) {
  const auto got = decode_status_update(
      R"({"trainerStatus":{"lastUpdatedTime":"2026-12-01T10:00:00.5+01:00","metrics":[{"name":"a<b","value":"1"}],"progressPercentage":7}})");
  ASSERT_TRUE(got);
  EXPECT_EQ(
      encode_status_update(*got),
      "{\"trainerStatus\":{\"progressPercentage\":7,\"metrics\":[{\"name\":\"a\\u003cb\",\"value\":\"1\"}],"
      "\"lastUpdatedTime\":\"2026-12-01T09:00:00Z\"}}\n");
  EXPECT_EQ(encode_status_update(StatusUpdate{}), "{}\n");
  EXPECT_EQ(encode_status_update(StatusUpdate{TrainerStatus{}}),
            "{\"trainerStatus\":{\"lastUpdatedTime\":null}}\n");
}

TEST(StatusRequest, ErrorsAreMetaV1StatusFailures) {
  EXPECT_EQ(status_forbidden(),
            (StatusAnswer{403,
                          "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"Forbidden\",\"reason\":"
                          "\"Forbidden\",\"code\":403}\n"}));
  EXPECT_EQ(status_invalid_payload().body,
            "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"Invalid "
            "payload\",\"reason\":\"Invalid\",\"code\":422}\n");
  EXPECT_EQ(status_payload_too_large().body,
            "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"Payload too large\",\"reason\":"
            "\"RequestEntityTooLarge\",\"code\":413}\n");
  EXPECT_EQ(status_route_not_found().body,
            "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"Not "
            "found\",\"reason\":\"NotFound\",\"code\":404}\n");
  EXPECT_EQ(
      status_job_not_found().body,
      "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"Train job not found\",\"reason\":\"NotFound\","
      "\"code\":404}\n");
  EXPECT_EQ(status_internal_error().code, 500);
}

TEST(StatusRequest, TheBearerCredentialIsReadAsTrainerV230ReadsIt) {
  struct Case {
    const char* header;
    const char* want;
  };
  const Case cases[] = {{"Bearer abc", "abc"},
                        {"bearer abc", "abc"},
                        {"  BEARER \t abc  ", "abc"},
                        {"Bearer", ""},
                        {"Bearer a b", ""},
                        {"Basic abc", ""},
                        {"", ""},
                        {"Bearerabc", ""}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.header);
    EXPECT_EQ(bearer_credential(c.header), c.want);
  }
}

TEST(StatusRequest, TheApplyHoldsOnlyTrainerStatus) {
  TrainerStatus s;
  s.progress_percentage = 42;
  s.last_updated_time = at("2026-12-01T10:00:00Z");
  EXPECT_EQ(trainjob_status_apply({StatusTarget::Kind::trainjob, "ns", "j"}, s),
            json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
              "metadata":{"name":"j","namespace":"ns"},
              "status":{"trainerStatus":{"progressPercentage":42,"lastUpdatedTime":"2026-12-01T10:00:00Z"}}})"));
}

TEST(StatusRequest, TheCrdRulesAreCheckedForPyTorchJobsInTheApiServersWords) {
  TrainerStatus s;
  s.progress_percentage = 101;
  s.estimated_remaining_seconds = -1;
  s.metrics = {{"", "1"}, {"loss", std::string(65, 'x')}};
  const auto errors = trainer_status_errors(s);
  const std::vector<std::string> want = {
      "status.trainerStatus.estimatedRemainingSeconds: Invalid value: -1: "
      "status.trainerStatus.estimatedRemainingSeconds in body should be greater than or equal to 0",
      "status.trainerStatus.metrics[0].name: Invalid value: \"\": status.trainerStatus.metrics[0].name in "
      "body "
      "should be at least 1 chars long",
      "status.trainerStatus.metrics[1].value: Invalid value: \"" + std::string(65, 'x') +
          "\": status.trainerStatus.metrics[1].value in body should be at most 64 chars long",
      "status.trainerStatus.progressPercentage: Invalid value: 101: status.trainerStatus.progressPercentage "
      "in body "
      "should be less than or equal to 100",
      "status.trainerStatus: Invalid value: \"object\": lastUpdatedTime is required when trainerStatus is "
      "present"};
  EXPECT_EQ(errors, want);
  EXPECT_EQ(invalid_object_message("PyTorchJob.kubeflow.org", "mnist", {want.back()}),
            "PyTorchJob.kubeflow.org \"mnist\" is invalid: status.trainerStatus: Invalid value: \"object\": "
            "lastUpdatedTime is required when trainerStatus is present");
  EXPECT_EQ(invalid_object_message("PyTorchJob.kubeflow.org", "m", {"a", "b"}),
            "PyTorchJob.kubeflow.org \"m\" is invalid: [a, b]");
  TrainerStatus ok;
  ok.last_updated_time = at("2026-12-01T10:00:00Z");
  ok.metrics.resize(256, {"n", "v"});
  EXPECT_TRUE(trainer_status_errors(ok).empty());
  ok.metrics.push_back({"n", "v"});
  EXPECT_EQ(
      trainer_status_errors(ok),
      std::vector<std::string>{"status.trainerStatus.metrics: Too many: 257: must have at most 256 items"});
}

TEST(StatusRequest, APyTorchJobKeepsItInTwoAnnotations) {
  TrainerStatus s;
  s.progress_percentage = 42;
  s.last_updated_time = at("2026-12-01T10:00:00Z");
  EXPECT_EQ(pytorchjob_progress_patch(s), json::parse(R"({"metadata":{"annotations":{
              "kubectl-pytorch.kubeflow.org/trainer-status":"{\"lastUpdatedTime\":\"2026-12-01T10:00:00Z\",\"progressPercentage\":42}",
              "kubectl-pytorch.kubeflow.org/progress-percentage":"42"}}})"));
  s.progress_percentage.reset();
  EXPECT_TRUE(pytorchjob_progress_patch(
                  s)["metadata"]["annotations"]["kubectl-pytorch.kubeflow.org/progress-percentage"]
                  .is_null());
}

}  // namespace
}  // namespace kpt::model::trainjob
