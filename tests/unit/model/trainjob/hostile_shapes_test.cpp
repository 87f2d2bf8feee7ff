// Every function of the model takes API objects that come from users: a value of the wrong type
// anywhere must never throw or crash.

#include "model/trainjob/build.hpp"
#include "model/trainjob/env_plan.hpp"
#include "model/trainjob/jobset_children.hpp"
#include "model/trainjob/lifecycle.hpp"
#include "model/trainjob/name_limits.hpp"
#include "model/trainjob/runtime_ref.hpp"
#include "tests/unit/model/trainjob/fixtures.hpp"

#include <gtest/gtest.h>

namespace kpt::model::trainjob {
namespace {

using nlohmann::json;

/// Every JSON pointer of `value` (objects and arrays, depth first).
void pointers(const json& value, const json::json_pointer& at, std::vector<json::json_pointer>& out) {
  out.push_back(at);
  if (value.is_object()) {
    for (const auto& [k, v] : value.items()) pointers(v, at / k, out);
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) pointers(value[i], at / i, out);
  }
}

void exercise(const json& trainjob, const json& runtime) {
  const util::Time now = *util::parse_time("2026-11-29T12:00:00Z");
  // The oldest, the per-job patch release and the newest: their code paths differ the most.
  for (const TrainerRelease release :
       {TrainerRelease{2, 0, 1}, TrainerRelease{2, 2, 0}, TrainerRelease{2, 3, 0}}) {
    auto built = build_jobset(trainjob, runtime, release);
    (void)plan_env(trainjob, runtime, release);
    (void)name_limit_for(trainjob, runtime, release);
    (void)resolve_runtime(trainjob, {{}, {runtime}}, LookupBy::webhook);
    const json js = default_jobset(built ? built->jobset : trainjob);
    (void)headless_service(js);
    (void)desired_pvcs(js);
    (void)jobset_name_errors(js);
    std::vector<JobObservation> observed;
    for (const auto& job : desired_jobs(js)) {
      const json created = created_job(job, "u");
      observed.push_back(job_observation_of(created));
      (void)decide_job(created, {{"p", 0, "Failed", false, 0, false}}, now);
      (void)desired_pods(js, {created}, [](const std::string&, std::int64_t) { return std::string("x"); });
    }
    (void)decide_jobset(js, observed, now);
    (void)decide_trainjob(trainjob, {true, false, jobset_status_of(js)}, true, release, now);
  }
}

void mutate_everywhere(const json& trainjob, const json& runtime) {
  const json replacements[] = {nullptr, 7, "x", json::array(), json::object(), json::array({1}), true};
  for (const auto& [which, base] : {std::pair{0, trainjob}, std::pair{1, runtime}}) {
    std::vector<json::json_pointer> paths;
    pointers(base, json::json_pointer(), paths);
    for (const auto& path : paths) {
      for (const auto& replacement : replacements) {
        json mutated = base;
        mutated[path] = replacement;
        SCOPED_TRACE(path.to_string() + " = " + replacement.dump());
        EXPECT_NO_THROW(which == 0 ? exercise(mutated, runtime) : exercise(trainjob, mutated));
      }
    }
  }
}

TEST(HostileShapes, NoValueOfTheWrongTypeAnywhereThrows) {
  mutate_everywhere(testing::load_fixture("runtime-patches.yaml"),
                    testing::load_fixture("dataset-init.yaml", 0));
}

TEST(HostileShapes, NorInInitializersTorchtuneAndClaimPolicies) {
  json trainjob = testing::load_fixture("dataset-init.yaml", 1);
  trainjob["spec"]["trainer"]["command"] = {"tune", "run"};
  trainjob["spec"]["runtimeRef"] = {{"name", "torchtune-llama3.2-1b"}};
  json runtime = testing::carried("torchtune-llama3.2-1b");
  runtime["spec"]["mlPolicy"]["torch"]["envInjection"] = {
      {"targets", {{{"jobName", "node"}, {"containerNames", {"node"}}}}}};
  mutate_everywhere(trainjob, runtime);
}

}  // namespace
}  // namespace kpt::model::trainjob
