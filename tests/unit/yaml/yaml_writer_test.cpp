#include "yaml/yaml_writer.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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

}  // namespace
}  // namespace kpt::yaml
