#include "yaml/yaml_writer.hpp"

#include "yaml/manifest_reader.hpp"
#include "yaml/node_json.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <string>

namespace kpt::yaml {
namespace {

using nlohmann::json;

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

TEST(ToYaml, QuotesTimestampsThatYaml11WouldReadAsDates) {
  const auto j =
      nlohmann::json::parse(R"({"at": "2026-12-06T03:37:18Z", "day": "2026-12-06", "word": "T1"})");
  EXPECT_EQ(to_yaml(j), "at: \"2026-12-06T03:37:18Z\"\nday: \"2026-12-06\"\nword: T1\n");
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

TEST(ToYaml, WritesSortedBlockStyleWithUnindentedSequences) {
  const json value = {
      {"kind", "ClusterTrainingRuntime"},
      {"metadata", {{"name", "torch-distributed"}, {"labels", {{"a/b", "c"}}}}},
      {"spec", {{"replicatedJobs", {{{"name", "node"}, {"replicas", 1}}}}, {"empty", json::object()}}},
      {"list", {"x", "y"}},
      {"none", json::array()}};
  EXPECT_EQ(to_yaml(value),
            "kind: ClusterTrainingRuntime\n"
            "list:\n"
            "- x\n"
            "- \"y\"\n"
            "metadata:\n"
            "  labels:\n"
            "    a/b: c\n"
            "  name: torch-distributed\n"
            "none: []\n"
            "spec:\n"
            "  empty: {}\n"
            "  replicatedJobs:\n"
            "  - name: node\n"
            "    replicas: 1\n");
}

TEST(ToYaml, QuotesStringsThatWouldReadBackAsAnotherType) {
  struct Case {
    const char* text;
    const char* yaml;
  };
  const Case cases[] = {
      {"29500", "\"29500\"\n"},
      {"true", "\"true\"\n"},
      {"No", "\"No\"\n"},
      {"null", "\"null\"\n"},
      {"", "\"\"\n"},
      {"1.5", "\"1.5\"\n"},
      {"0x1F", "\"0x1F\"\n"},
      {"2026-01-01", "\"2026-01-01\"\n"},
      {"a: b", "\"a: b\"\n"},
      {"- x", "\"- x\"\n"},
      {"*ref", "\"*ref\"\n"},
      {" lead", "\" lead\"\n"},
      {"tab\there", "\"tab\\there\"\n"},
      {"plain-text", "plain-text\n"},
      {"hf://tatsu-lab/alpaca", "hf://tatsu-lab/alpaca\n"},
      {"pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime", "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime\n"},
      {"metadata.annotations['batch.kubernetes.io/job-completion-index']",
       "metadata.annotations['batch.kubernetes.io/job-completion-index']\n"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(to_yaml(json(c.text)), c.yaml);
  }
  EXPECT_EQ(to_yaml(json{{"29500", 1}}), "\"29500\": 1\n");
}

TEST(ToYaml, WritesMultiLineStringsAsLiteralBlocks) {
  EXPECT_EQ(to_yaml(json{{"command", {"bash", "echo a\n\necho b\n"}}}),
            "command:\n- bash\n- |\n  echo a\n\n  echo b\n");
  EXPECT_EQ(to_yaml(json{{"s", "no newline\nat end"}}), "s: |-\n  no newline\n  at end\n");
  EXPECT_EQ(to_yaml(json{{"s", "two\n\n"}}), "s: |+\n  two\n\n");
  // Trailing blanks would be lost in a block: quoted instead.
  EXPECT_EQ(to_yaml(json{{"s", "a \nb"}}), "s: \"a \\nb\"\n");
}

TEST(ToYaml, WritesScalarsAndDeepNestingBoundedly) {
  EXPECT_EQ(to_yaml(json{{"n", 3}, {"f", 1.5}, {"b", false}, {"z", nullptr}}),
            "b: false\nf: 1.5\n\"n\": 3\nz: null\n");
  json deep = "leaf";
  for (int i = 0; i < 200; ++i) deep = json{{"k", deep}};
  const std::string out = to_yaml(deep);
  EXPECT_NE(out.find("{\"k\":"), std::string::npos);  // past the block depth, flow style
  EXPECT_EQ(out.back(), '\n');
}

// Found by fuzz_manifest_reader (corpus regression-root-literal-block-dash): a document that is
// one multi-line string with a line starting "- " was written as a literal block at column 0.
TEST(ToYaml, AMultiLineRootStringReadsBack) {
  const json value = "6    - 1\"\n- 1\"";
  const std::string text = to_yaml(value);
  EXPECT_EQ(text, "|-\n 6    - 1\"\n - 1\"\n");
  const auto read = read_manifests("again.yaml", std::make_shared<const std::string>(text));
  ASSERT_EQ(read.documents.size(), 1u);
  EXPECT_EQ(to_json(read.documents[0].root), value);
}

// Found by fuzz_manifest_reader in CI (corpus regression-next-line): "\N" in a double-quoted
// scalar is U+0085, a line break to YAML, and it was written unquoted, so it read back as a space.
TEST(ToYaml, UnprintableUnicodeIsEscapedAndReadsBack) {
  const json value = {{"nel", "a\u0085b"},
                      {"c1", "\u0080"},
                      {"separators", "x\u2028y\u2029z"},
                      {"bom", "\ufeffv"},
                      {"lines", "one\ntwo\u0085"},
                      {"kept", "caf\u00e9 \u00a0"}};
  const std::string text = to_yaml(value);
  EXPECT_EQ(text,
            "bom: \"\\uFEFFv\"\n"
            "c1: \"\\u0080\"\n"
            "kept: caf\u00e9 \u00a0\n"
            "lines: \"one\\ntwo\\u0085\"\n"
            "nel: \"a\\u0085b\"\n"
            "separators: \"x\\Ly\\Pz\"\n");
  const auto read = read_manifests("again.yaml", std::make_shared<const std::string>(text));
  ASSERT_TRUE(read.findings.empty()) << read.findings.front().message;
  ASSERT_EQ(read.documents.size(), 1u);
  EXPECT_EQ(to_json(read.documents.front().root), value);
}

// Found by fuzz_manifest_reader in CI (corpus regression-document-end-key): the flow key "... 'd'" was
// written plain, and "..." at the start of a line ends the document, so it did not read back.
// Found by the manifest reader's fuzz target once the reader stopped merging a '!!str <<' key.
TEST(ToYaml, AMergeKeySpelledAsAStringIsQuoted) {
  const json value = {{"<<", json::array({{{"x", 1}}})}, {"k", "<<"}};
  const std::string text = to_yaml(value);
  EXPECT_EQ(text, "\"<<\":\n- x: 1\nk: \"<<\"\n");
  const auto read = read_manifests("again.yaml", std::make_shared<const std::string>(text));
  ASSERT_TRUE(read.findings.empty()) << read.findings.front().message;
  EXPECT_EQ(to_json(read.documents.front().root), value);
}

// Found by the manifest reader's fuzz target in CI: "\n  a" was a literal block whose indentation
// libyaml takes from its first content line, so the two blanks were lost.
TEST(ToYaml, TextWhoseFirstContentLineStartsWithABlankIsQuoted) {
  for (const std::string text : {"\n  runPolicy: ?", "\n\n\tx\ny", " a\nb"}) {
    SCOPED_TRACE(text);
    const std::string yaml = to_yaml(json{{"k", text}}) + to_yaml(json(text));
    EXPECT_EQ(yaml.find('|'), std::string::npos);
    const auto read = read_manifests("again.yaml", std::make_shared<const std::string>(to_yaml(json(text))));
    ASSERT_TRUE(read.findings.empty()) << read.findings.front().message;
    EXPECT_EQ(to_json(read.documents.front().root), json(text));
  }
}

TEST(ToYaml, AStringStartingWithTheDocumentEndMarkerIsQuoted) {
  const json value = {{"... 'd'", "e"}, {"k", "..."}, {"l", json::array({"...x", "a..."})}};
  const std::string text = to_yaml(value);
  EXPECT_EQ(text, "\"... 'd'\": e\nk: \"...\"\nl:\n- \"...x\"\n- a...\n");
  const auto read = read_manifests("again.yaml", std::make_shared<const std::string>(text));
  ASSERT_TRUE(read.findings.empty()) << read.findings.front().message;
  ASSERT_EQ(read.documents.size(), 1u);
  EXPECT_EQ(to_json(read.documents.front().root), value);
}

// Found by fuzz_manifest_reader (corpus regression-only-line-breaks): "\r\r" reads as "\n", which
// was written as a literal block with no content line, and that reads back as "".
TEST(ToYaml, AStringOfLineBreaksOnlyIsQuoted) {
  for (const json& value : {json("\n"), json("\n\n"), json{{"k", "\n"}}}) {
    const std::string text = to_yaml(value);
    const auto read = read_manifests("again.yaml", std::make_shared<const std::string>(text));
    ASSERT_EQ(read.documents.size(), 1u) << text;
    EXPECT_EQ(to_json(read.documents[0].root), value) << text;
  }
  EXPECT_EQ(to_yaml(json("\n")), "\"\\n\"\n");
}

}  // namespace
}  // namespace kpt::yaml
