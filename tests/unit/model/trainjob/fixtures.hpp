#pragma once
// Loading the TrainJob model's fixtures (testdata/trainjob, written for these tests).

#include "model/trainjob/release.hpp"
#include "model/trainjob/runtime_catalog.hpp"
#include "yaml/manifest_reader.hpp"
#include "yaml/node_json.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace kpt::model::trainjob::testing {

/// Every document of testdata/trainjob/<name>, as JSON.
inline std::vector<nlohmann::json> load_documents(const std::string& name) {
  std::ifstream in(std::string(KPT_SOURCE_DIR) + "/testdata/trainjob/" + name, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const auto read = yaml::read_manifests(name, std::make_shared<const std::string>(text.str()));
  EXPECT_TRUE(read.findings.empty()) << name;
  std::vector<nlohmann::json> out;
  for (const auto& doc : read.documents) out.push_back(yaml::to_json(doc.root));
  return out;
}

/// Document `index` of testdata/trainjob/<name>.
inline nlohmann::json load_fixture(const std::string& name, std::size_t index = 0) {
  const auto docs = load_documents(name);
  EXPECT_GT(docs.size(), index) << name;
  return docs.size() > index ? docs[index] : nlohmann::json::object();
}

/// A carried ClusterTrainingRuntime of `release` (fails the test when the release lacks it).
inline nlohmann::json carried(const std::string& name, TrainerRelease release = k_newest_trainer_release) {
  auto runtime = carried_runtime(release, name);
  EXPECT_TRUE(runtime.has_value()) << name << " in " << release.to_string();
  return runtime.value_or(nlohmann::json::object());
}

/// The env var `name` of a container, or null.
inline nlohmann::json env_of(const nlohmann::json& container, const std::string& name) {
  for (const auto& e : container.value("env", nlohmann::json::array())) {
    if (e.value("name", "") == name) return e;
  }
  return nullptr;
}

/// Names of a container's env vars, in order.
inline std::vector<std::string> env_names(const nlohmann::json& container) {
  std::vector<std::string> out;
  for (const auto& e : container.value("env", nlohmann::json::array())) out.push_back(e.value("name", ""));
  return out;
}

/// Container `name` of replicated job `job` of a JobSet.
inline nlohmann::json container_of(const nlohmann::json& jobset, const std::string& job,
                                   const std::string& name) {
  for (const auto& rjob : jobset["spec"]["replicatedJobs"]) {
    if (rjob["name"] != job) continue;
    for (const auto& c : rjob["template"]["spec"]["template"]["spec"]["containers"]) {
      if (c["name"] == name) return c;
    }
  }
  return nullptr;
}

}  // namespace kpt::model::trainjob::testing
