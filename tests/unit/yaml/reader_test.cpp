#include "tests/unit/yaml/reader_test_support.hpp"
#include "yaml/manifest_reader.hpp"

#include <gtest/gtest.h>

namespace kpt::yaml {
namespace {

using testing::describe;
using testing::fixture;
using testing::read_text;

struct At {
  std::uint32_t line;
  std::uint32_t col;
};

void expect_at(Position pos, At want) {
  EXPECT_EQ(pos.line, want.line);
  EXPECT_EQ(pos.col, want.col);
}

// Position of the key that ends `path` and of its value.
void expect_key_and_value(const Node& root, std::initializer_list<std::string_view> path, At key, At value) {
  const Node* parent = &root;
  std::string_view last;
  std::size_t i = 0;
  for (auto part : path) {
    if (++i == path.size()) {
      last = part;
      break;
    }
    parent = parent->find(part);
    ASSERT_NE(parent, nullptr) << part;
  }
  const auto index = parent->key_index(last);
  ASSERT_GE(index, 0) << last;
  expect_at(parent->key_positions[static_cast<std::size_t>(index)], key);
  expect_at(parent->items[static_cast<std::size_t>(index)].pos, value);
}

TEST(ManifestReader, GivesEveryBlockKeyAndValueItsLineAndColumn) {
  const auto result = read_text(fixture("job.yaml"));
  ASSERT_TRUE(result.findings.empty()) << describe(result.findings.front());
  ASSERT_EQ(result.documents.size(), 2u);
  const auto& root = result.documents[0].root;
  expect_at(root.pos, {2, 1});
  expect_key_and_value(root, {"apiVersion"}, {2, 1}, {2, 13});
  expect_key_and_value(root, {"metadata", "name"}, {5, 3}, {5, 9});
  expect_key_and_value(root, {"metadata", "labels", "tier"}, {6, 22}, {6, 28});
  expect_key_and_value(root, {"spec", "pytorchReplicaSpecs", "Worker", "replicas"}, {10, 7}, {10, 17});
  const auto* containers =
      root.at_path({"spec", "pytorchReplicaSpecs", "Worker", "template", "spec", "containers"});
  ASSERT_NE(containers, nullptr);
  expect_at(containers->pos, {14, 11});
  ASSERT_EQ(containers->items.size(), 1u);
  const auto& container = containers->items[0];
  expect_at(container.pos, {14, 13});
  expect_key_and_value(container, {"image"}, {15, 13}, {15, 20});
  const auto& env = *container.find("env");
  ASSERT_EQ(env.items.size(), 2u);
  expect_key_and_value(env.items[0], {"value"}, {18, 15}, {18, 22});
  expect_at(env.items[1].pos, {19, 15});
  expect_key_and_value(env.items[1], {"value"}, {19, 31}, {19, 38});
}

TEST(ManifestReader, GivesJsonKeysAndValuesTheirLineAndColumn) {
  const auto result = read_manifests("job.json", std::make_shared<const std::string>(fixture("job.json")));
  ASSERT_TRUE(result.findings.empty()) << describe(result.findings.front());
  ASSERT_EQ(result.documents.size(), 1u);
  const auto& root = result.documents[0].root;
  expect_at(root.pos, {1, 1});
  expect_key_and_value(root, {"apiVersion"}, {2, 3}, {2, 17});
  expect_key_and_value(root, {"metadata", "name"}, {4, 16}, {4, 24});
  expect_key_and_value(root, {"spec", "pytorchReplicaSpecs", "Worker", "replicas"}, {8, 9}, {8, 21});
  const auto* containers =
      root.at_path({"spec", "pytorchReplicaSpecs", "Worker", "template", "spec", "containers"});
  ASSERT_NE(containers, nullptr);
  const auto& port = containers->items.at(0).find("ports")->items.at(0);
  expect_key_and_value(port, {"containerPort"}, {10, 76}, {10, 93});
  EXPECT_EQ(port.find("containerPort")->kind, NodeKind::integer);
  EXPECT_EQ(port.find("containerPort")->integer, 23456);
}

TEST(ManifestReader, SplitsMultiDocumentStreamsAndSkipsEmptyDocuments) {
  const auto result = read_text(fixture("job.yaml"));
  ASSERT_EQ(result.documents.size(), 2u);
  EXPECT_EQ(result.empty_documents, 1u);
  const auto& second = result.documents[1];
  EXPECT_EQ(second.file, "job.yaml");
  EXPECT_EQ(second.index, 2u);
  expect_at(second.start, {21, 1});
  expect_key_and_value(second.root, {"kind"}, {24, 1}, {24, 7});
  EXPECT_EQ(second.source, result.documents[0].source);
  EXPECT_EQ(second.source->size(), fixture("job.yaml").size());
}

TEST(ManifestReader, SkipsDocumentsThatAreOnlyNullOrComments) {
  const auto result = read_text("# nothing\n---\n~\n---\nnull\n---\na: 1\n...\n");
  ASSERT_TRUE(result.findings.empty());
  ASSERT_EQ(result.documents.size(), 1u);
  EXPECT_EQ(result.documents[0].index, 2u);
  EXPECT_EQ(result.empty_documents, 2u);
}

TEST(ManifestReader, CountsColumnsInCharactersAndIgnoresByteOrderMarkAndCarriageReturns) {
  const auto result = read_text(
      "\xEF\xBB\xBF"
      "a: 1\r\nname: \xC3\xA9t\xC3\xA9\r\nb: x\r\n");
  ASSERT_TRUE(result.findings.empty());
  const auto& root = result.documents.at(0).root;
  expect_key_and_value(root, {"a"}, {1, 1}, {1, 4});
  expect_key_and_value(root, {"name"}, {2, 1}, {2, 7});
  EXPECT_EQ(root.find("name")->text, "\xC3\xA9t\xC3\xA9");
  expect_key_and_value(root, {"b"}, {3, 1}, {3, 4});
  EXPECT_EQ(root.find("b")->text, "x");
}

TEST(ManifestReader, ExpandsAliasesAndPointsTheCopyAtTheAlias) {
  const auto result = read_text("base: &img {image: x, pull: Always}\nother: *img\n");
  ASSERT_TRUE(result.findings.empty());
  const auto& root = result.documents.at(0).root;
  const auto* copy = root.find("other");
  ASSERT_NE(copy, nullptr);
  ASSERT_TRUE(copy->is_map());
  expect_at(copy->pos, {2, 8});
  EXPECT_EQ(copy->find("image")->text, "x");
  expect_at(copy->find("pull")->pos, {1, 29});
}

TEST(ManifestReader, MergesMergeKeysWithExplicitKeysWinning) {
  const auto result = read_text(
      "a: &a {p: 1, q: 2}\n"
      "b: &b {q: 3, r: 4}\n"
      "c:\n"
      "  <<: [*a, *b]\n"
      "  p: 9\n");
  ASSERT_TRUE(result.findings.empty()) << describe(result.findings.front());
  const auto& c = *result.documents.at(0).root.find("c");
  ASSERT_EQ(c.keys, (std::vector<std::string>{"p", "q", "r"}));
  EXPECT_EQ(c.find("p")->integer, 9);
  EXPECT_EQ(c.find("q")->integer, 2);
  EXPECT_EQ(c.find("r")->integer, 4);
  expect_at(c.key_positions[2], {2, 14});
}

// The differential test against yaml-cpp with go-yaml's rules found a tagged '<<' merged.
TEST(ManifestReader, OnlyAPlainOrMergeTaggedKeyMerges) {
  const auto result = read_text(
      "a: &a {p: 1}\n"
      "plain: {<<: *a}\n"
      "merge: {!!merge <<: *a}\n"
      "str: {!!str <<: *a}\n"
      "quoted: {\"<<\": *a}\n");
  ASSERT_TRUE(result.findings.empty()) << describe(result.findings.front());
  const auto& root = result.documents.at(0).root;
  EXPECT_EQ(root.find("plain")->keys, (std::vector<std::string>{"p"}));
  EXPECT_EQ(root.find("merge")->keys, (std::vector<std::string>{"p"}));
  EXPECT_EQ(root.find("str")->keys, (std::vector<std::string>{"<<"}));
  EXPECT_EQ(root.find("quoted")->keys, (std::vector<std::string>{"<<"}));
  EXPECT_EQ(root.find("str")->find("<<")->find("p")->integer, 1);
}

TEST(ManifestReader, KeepsFirstValueOfADuplicateKey) {
  const auto result = read_text("replicas: 1\nreplicas: 2\n");
  ASSERT_EQ(result.documents.size(), 1u);
  EXPECT_EQ(result.documents[0].root.keys.size(), 1u);
  EXPECT_EQ(result.documents[0].root.find("replicas")->integer, 1);
}

TEST(ManifestReader, DetectsDuplicatesInLargeMappings) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += "k" + std::to_string(i) + ": " + std::to_string(i) + "\n";
  text += "k150: again\n";
  const auto result = read_text(text);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(
      describe(result.findings[0]),
      "job.yaml:201:1 [yaml.duplicate-key] k150: duplicate key 'k150' (first at line 151) | hint: remove one "
      "of them; Kubernetes rejects duplicate keys");
  EXPECT_EQ(result.documents.at(0).root.keys.size(), 200u);
}

TEST(ManifestReader, TurnsNonStringKeysIntoTheStringsKubernetesUses) {
  // go-yaml v2 reads `on` and `y` as booleans, and sigs.k8s.io/yaml then spells both "true".
  const auto result = read_text("on: 1\n0x10: 2\n5: 3\ny: 4\n");
  EXPECT_EQ(result.documents.at(0).root.keys, (std::vector<std::string>{"true", "16", "5"}));
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].message, "duplicate key 'true' (first at line 1)");
}

TEST(ManifestReader, ReportsInputCutAtMaxBytes) {
  InputFile input{"big.yaml", std::make_shared<const std::string>("a: 1\n"), true};
  ReadLimits limits;
  limits.max_bytes = 5;
  const auto result = read_manifests(input, limits);
  EXPECT_TRUE(result.documents.empty());
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(
      describe(result.findings[0]),
      "big.yaml:1:1 [input.too-large] : file is larger than the limit of 5 bytes | hint: raise the limit "
      "with --max-bytes");
}

}  // namespace
}  // namespace kpt::yaml
