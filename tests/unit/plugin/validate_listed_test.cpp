// validate_listed (workers read their own files) answers what collect_inputs + validate_inputs answer.
#include "plugin/validate_runner.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "schema/carried/carried_schema.hpp"
#include "schema/memory_file_reader.hpp"

namespace kpt::plugin {
namespace {

const char* const k_job =
    "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: j\nspec:\n  pytorchReplicaSpecs:\n"
    "    Worker:\n      replicas: 2\n      template:\n        spec:\n          containers:\n"
    "          - name: pytorch\n            image: example.com/train:1.0\n";

ValidateSettings settings(unsigned jobs) {
  ValidateSettings s;
  s.schemas = &schema::carried_schema();
  s.jobs = jobs;
  s.limits.max_bytes = 1000;
  return s;
}

std::string as_json(const Report& r) {
  std::ostringstream out;
  write_json(r, out);
  return out.str();
}

/// Both ways, as text: the report's JSON or "error: <code> <message>".
std::pair<std::string, std::string> both(const std::vector<std::string>& args, schema::FileReader& fs, unsigned jobs) {
  const auto s = settings(jobs);
  std::istringstream in1("a: 1\n");
  std::string old_way;
  if (auto inputs = schema::collect_inputs(args, fs, in1, s.limits.max_bytes)) {
    old_way = as_json(validate_inputs(*inputs, s));
  } else {
    old_way = "error: " + std::to_string(static_cast<int>(inputs.error().code)) + " " + inputs.error().message;
  }
  std::istringstream in2("a: 1\n");
  std::string new_way;
  const auto listed = schema::list_inputs(args, fs, in2, s.limits.max_bytes);
  if (auto report = validate_listed(listed, fs, s)) {
    new_way = as_json(*report);
  } else {
    new_way = "error: " + std::to_string(static_cast<int>(report.error().code)) + " " + report.error().message;
  }
  return {old_way, new_way};
}

TEST(ValidateListed, AnswersLikeCollectInputsThenValidateInputs) {
  struct Case {
    const char* name;
    std::vector<std::string> args;
    const char* expect_start;
  };
  const Case cases[] = {
      {"files, a directory and stdin", {"a.yaml", "dir", "-", "big.yaml"}, "{"},
      {"a missing path after files", {"a.yaml", "nope.yaml"}, "error: "},
      {"an unreadable file before a missing path", {"locked.yaml", "nope.yaml"}, "error: "},
      {"an unreadable file in a directory", {"a.yaml", "bad"}, "error: "},
      {"a directory without manifests", {"a.yaml", "empty"}, "error: "},
      {"stdin twice", {"-", "a.yaml", "-"}, "error: "},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    schema::MemoryFileReader fs;
    fs.add_file("a.yaml", k_job);
    fs.add_file("dir/b.yaml", std::string(k_job) + "---\n" + k_job);
    fs.add_file("dir/c.yaml", "apiVersion: v1\nkind: ConfigMap\n");
    fs.add_file("big.yaml", std::string(2000, '#'));
    fs.add_file("bad/ok.yaml", k_job);
    fs.fail_read("bad/x.yaml", "Permission denied");
    fs.fail_read("locked.yaml", "Permission denied");
    fs.add_directory("empty");
    const auto [old_way, new_way] = both(c.args, fs, 1);
    EXPECT_EQ(new_way, old_way);
    EXPECT_EQ(new_way.rfind(c.expect_start, 0), 0u) << new_way;
  }
}

TEST(ValidateListed, ReadsAndValidatesOnSeveralThreadsInInputOrder) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto dir = std::filesystem::path(::testing::TempDir()) / ("kpt-listed-" + std::string(info->name()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "jobs");
  for (int i = 0; i < 40; ++i) {
    std::ofstream(dir / "jobs" / ("job-" + std::to_string(100 + i) + ".yaml"))
        << (i % 3 == 0 ? std::string(k_job) + "    bogus: 1\n" : std::string(k_job));
  }
  auto fs = schema::make_disk_reader();
  const auto [old_way, new_way] = both({(dir / "jobs").string()}, *fs, 2);
  EXPECT_EQ(new_way, old_way);
  EXPECT_NE(new_way.find("job-139.yaml"), std::string::npos);
  const auto [old_missing, new_missing] = both({(dir / "jobs").string(), (dir / "nope.yaml").string()}, *fs, 2);
  EXPECT_EQ(new_missing, old_missing);
  EXPECT_EQ(new_missing, "error: " + std::to_string(static_cast<int>(ErrorCode::io)) + " reading '" +
                             (dir / "nope.yaml").string() + "': No such file or directory");
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kpt::plugin
