#include "local/kubeconfig_merge.hpp"

#include "tests/support/temp_dir.hpp"
#include "util/file_io.hpp"
#include "yaml/node_json.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <fstream>

namespace kpt::local {
namespace {

using nlohmann::json;

TEST(MergedKubeconfig, AddsTheLocalEntriesMakesThemCurrentAndKeepsTheRest) {
  const json existing = {
      {"apiVersion", "v1"},
      {"kind", "Config"},
      {"clusters",
       {{{"name", "prod"}, {"cluster", {{"server", "https://prod"}}}},
        {{"name", "kubectl-pytorch-local"}, {"cluster", {{"server", "https://old"}}}}}},
      {"users", {{{"name", "me"}, {"user", {{"token", "t"}}}}}},
      {"contexts", {{{"name", "prod"}, {"context", {{"cluster", "prod"}, {"user", "me"}}}}}},
      {"current-context", "prod"},
      {"preferences", json::object()}};
  auto got = merged_kubeconfig(existing, "https://127.0.0.1:4443", "PEM", "secret");
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ((*got)["current-context"], "kubectl-pytorch-local");
  EXPECT_EQ((*got)["clusters"].size(), 2u);
  EXPECT_EQ((*got)["clusters"][0]["cluster"]["server"], "https://prod");
  EXPECT_EQ(
      (*got)["clusters"][1],
      json({{"name", "kubectl-pytorch-local"},
            {"cluster", {{"server", "https://127.0.0.1:4443"}, {"certificate-authority-data", "UEVN"}}}}));
  EXPECT_EQ((*got)["users"][1], json({{"name", "kubectl-pytorch-local"}, {"user", {{"token", "secret"}}}}));
  EXPECT_EQ((*got)["contexts"][1]["context"], json({{"cluster", "kubectl-pytorch-local"},
                                                    {"user", "kubectl-pytorch-local"},
                                                    {"namespace", "default"}}));
  EXPECT_EQ((*got)["preferences"], json::object());
  auto broken = merged_kubeconfig(json::array(), "u", "c", "t");
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().message, "it is not a kubeconfig (not a mapping)");
}

TEST(MergeIntoKubeconfig, CreatesTheFileWhenMissingPrivateToTheUser) {
  kpt::testing::TempDir dir("kpt-merge");
  const std::string path = dir.file("kube/config");
  ASSERT_TRUE(merge_into_kubeconfig(path, "https://127.0.0.1:1", "PEM", "t"));
  ASSERT_TRUE(merge_into_kubeconfig(path, "https://127.0.0.1:2", "PEM", "t"));  // replaced, not added
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto text = util::read_file(path);
  ASSERT_TRUE(text);
  auto back = yaml::yaml_to_json(path, *text);
  ASSERT_TRUE(back);
  EXPECT_EQ((*back)["clusters"].size(), 1u);
  EXPECT_EQ((*back)["clusters"][0]["cluster"]["server"], "https://127.0.0.1:2");
  EXPECT_EQ((*back)["kind"], "Config");
}

}  // namespace
}  // namespace kpt::local
