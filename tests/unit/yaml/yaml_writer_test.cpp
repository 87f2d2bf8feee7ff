#include "yaml/yaml_writer.hpp"

#include "yaml/manifest_reader.hpp"
#include "yaml/node_json.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <string>

namespace kpt::yaml {
namespace {

TEST(ToYaml, PrintsBlockStyleAndQuotesWhatYaml11WouldMisread) {
  const auto j = nlohmann::json::parse(R"({
    "kind": "PyTorchJob",
    "spec": {"replicas": 2, "flags": ["yes", "1e3", "plain", ""], "empty": {}, "list": [],
             "items": [{"name": "a", "value": "0x1F"}, {"name": "b: c"}]}
  })");
  EXPECT_EQ(to_yaml(j),
            "kind: PyTorchJob\n"
            "spec:\n"
            "  empty: {}\n"
            "  flags:\n"
            "  - \"yes\"\n"
            "  - \"1e3\"\n"
            "  - plain\n"
            "  - \"\"\n"
            "  items:\n"
            "  - name: a\n"
            "    value: \"0x1F\"\n"
            "  - name: \"b: c\"\n"
            "  list: []\n"
            "  replicas: 2\n");
}

// Found by fuzz_manifest_reader (corpus regression-long-key): a key past libyaml's 1024-character
// simple-key limit was written as a simple key, so the YAML did not read back.
TEST(ToYaml, KeysPastTheSimpleKeyLimitAreWrittenExplicitlyAndReadBack) {
  const std::string long_key(1100, 'k');
  nlohmann::json j;
  j["top"][long_key] = "v";
  j["top"]["list"] = nlohmann::json::array({nlohmann::json{{long_key, {{"a", 1}}}}});
  j[long_key] = nlohmann::json::array({1});
  const std::string text = to_yaml(j);
  EXPECT_EQ(text, "? " + long_key + "\n:\n- 1\n" +  //
                      "top:\n"
                      "  ? " +
                      long_key + "\n  : v\n" +  //
                      "  list:\n"
                      "  - ? " +
                      long_key + "\n    :\n      a: 1\n");
  const auto read = read_manifests("again.yaml", std::make_shared<const std::string>(text));
  ASSERT_TRUE(read.findings.empty()) << read.findings.front().message;
  ASSERT_EQ(read.documents.size(), 1u);
  EXPECT_EQ(to_json(read.documents.front().root), j);
}

}  // namespace
}  // namespace kpt::yaml
