#include "local/pod_validation.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::local {
namespace {

using nlohmann::json;

const std::string k_label_rule =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
    "and "
    "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

json pod_with(json spec) { return {{"metadata", {{"name", "p"}}}, {"spec", std::move(spec)}}; }

json containers(std::initializer_list<const char*> names) {
  json out = json::array();
  for (const char* n : names) out.push_back({{"name", n}, {"command", {"true"}}});
  return out;
}

TEST(InvalidPodField, RefusesWhatTheApiServerRefusesInNamesThatBecomePathsOrHostLines) {
  struct Case {
    const char* name;
    json spec;
    std::optional<std::string> want;
  };
  const std::vector<Case> cases = {
      {"plain names pass",
       {{"containers", containers({"main", "side-car"})}, {"hostname", "w-0"}},
       std::nullopt},
      {"a path in a container name",
       {{"containers", containers({"../x"})}},
       "spec.containers[0].name: Invalid value: \"../x\": " + k_label_rule},
      {"an init container's name",
       {{"initContainers", containers({"Init"})}, {"containers", containers({"main"})}},
       "spec.initContainers[0].name: Invalid value: \"Init\": " + k_label_rule},
      {"a name twice",
       {{"containers", containers({"a", "a"})}},
       "spec.containers[1].name: Duplicate value: \"a\""},
      {"a newline in the hostname",
       {{"containers", containers({"a"})}, {"hostname", "w\n127.0.0.1 evil"}},
       "spec.hostname: Invalid value: \"w\\n127.0.0.1 evil\": " + k_label_rule},
      {"a dotted subdomain",
       {{"containers", containers({"a"})}, {"hostname", "w"}, {"subdomain", "a.b"}},
       "spec.subdomain: Invalid value: \"a.b\": " + k_label_rule},
      {"a name that is not a string",
       {{"containers", json::array({{{"name", 3}}})}},
       "spec.containers[0].name: Invalid value: \"3\": must be a string"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(invalid_pod_field(pod_with(c.spec)), c.want);
  }
}

TEST(IsSafeName, TakesDnsLabelsOnly) {
  EXPECT_TRUE(is_safe_name("worker-0"));
  EXPECT_FALSE(is_safe_name(""));
  EXPECT_FALSE(is_safe_name(".."));
  EXPECT_FALSE(is_safe_name("a/b"));
  EXPECT_FALSE(is_safe_name(std::string(64, 'a')));
}

}  // namespace
}  // namespace kpt::local
