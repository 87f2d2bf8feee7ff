// The fast path for plain manifests answers exactly what libyaml answers, or nothing.
#include "yaml/simple_yaml.hpp"

#include "tests/unit/yaml/reader_test_support.hpp"
#include "yaml/manifest_reader.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kpt::yaml {
namespace {

std::string at(Position p) { return std::to_string(p.line) + ":" + std::to_string(p.col); }

/// Everything a Node holds, positions included, one line per node.
void dump(const Node& n, const std::string& indent, std::string& out) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &n.number, sizeof bits);
  out += indent + to_string(n.kind) + " @" + at(n.pos) + (n.quoted ? " quoted" : "") +
         (n.int_overflow ? " overflow" : "") + (n.boolean ? " true" : "") +
         " i=" + std::to_string(n.integer) + " d=" + std::to_string(bits) + " '" + n.text + "'\n";
  for (std::size_t i = 0; i < n.items.size(); ++i) {
    if (n.is_map()) out += indent + "key '" + n.keys[i] + "' @" + at(n.key_positions[i]) + "\n";
    dump(n.items[i], indent + "  ", out);
  }
}

std::string dump(const ReadResult& r) {
  std::string out = "empty=" + std::to_string(r.empty_documents) + "\n";
  for (const auto& d : r.findings) out += testing::describe(d) + "\n";
  for (const auto& doc : r.documents) {
    out += "doc " + doc.file + " #" + std::to_string(doc.index) + " @" + at(doc.start) +
           (doc.source ? " source" : "") + "\n";
    dump(doc.root, "  ", out);
  }
  return out;
}

/// The fast path's answer for `text`, checked against libyaml's when there is one.
bool fast_path_matches(const std::string& name, const std::string& text) {
  const auto shared = std::make_shared<const std::string>(text);
  const auto fast = read_simple_yaml(name, shared, ReadLimits{});
  if (!fast) return false;
  EXPECT_EQ(dump(*fast), dump(read_manifests_with_libyaml(name, shared))) << text;
  return true;
}

struct Case {
  const char* name;
  const char* text;
};

TEST(SimpleYaml, AnswersLikeLibyamlForPlainManifests) {
  const std::vector<Case> cases = {
      {"one mapping", "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\n"},
      {"nested mappings", "a:\n  b:\n    c: 1\n  d: x\ne: y\n"},
      {"indentless sequence", "items:\n- a\n- b\nnext: 1\n"},
      {"indented sequence", "items:\n  - a\n  -   b\nnext: 1\n"},
      {"sequence of mappings",
       "c:\n- name: a\n  image: x\n- name: b\n  ports:\n  - containerPort: 1\n    name: p\n"},
      {"nested sequences", "a:\n- - x\n  - y\n- - z\n"},
      {"null values", "a:\nb:   \nc: # comment\n  d:\ne:\n"},
      {"null value before an indentless sequence's end", "a:\n- x:\n- y\n"},
      {"comments everywhere", "# head\na: 1 # one\n   # odd indent\nb: \"q\"  # two\n\n\nc: 'x'\n"},
      {"quoted scalars", "a: \"1\"\nb: 'yes'\nc: \"\"\nd: ''\ne: \"a # b: c\"\n"},
      {"plain scalars with indicators inside", "a: b:c\nb: x#y\nc: -1\nd: --flag=1\ne: a, b [c] {d}\n"},
      {"resolved plain scalars",
       "a: yes\nb: 0x1F\nc: 1_000\nd: .5\ne: ~\nf: null\ng: 3000000000000000000000\n"},
      {"trailing blanks", "a: b   \nc:    d e  \n"},
      {"flow sequences", "a: [\"sh\", \"-c\", x]\nb: []\nc: [ 1 , -2 ]\nd: [a b]\n"},
      {"flow mappings", "a: {cpu: \"2\", memory: 4Gi}\nb: {}\nc: { x: 1 }\n"},
      {"flow collections as items", "a:\n- [1, 2]\n- {k: v}\n"},
      {"documents", "a: 1\n---\nb: 2\n---\n# c\nc: 3\n"},
      {"explicit first document", "---\na: 1\n"},
      {"comment before the first document", "# x\n\n---\na: 1\n"},
      {"root sequence", "- a\n- b: c\n"},
      {"keys that are not strings", "1: a\ntrue: b\nnull: c\n0x10: d\n"},
      {"no final newline", "a: b"},
      {"deep indentation", "a:\n      b:\n         - c\n         - d\n      e: f\n"},
      {"merge key", "a: {x: 1}\nb:\n  <<: {y: 2}\n  z: 3\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_TRUE(fast_path_matches("job.yaml", c.text));
  }
}

TEST(SimpleYaml, LeavesEverythingElseToLibyaml) {
  const std::vector<Case> cases = {
      {"anchor and alias", "a: &x 1\nb: *x\n"},
      {"tag", "a: !!int 1\n"},
      {"literal block", "a: |\n  text\n"},
      {"folded block", "a: >\n  text\n"},
      {"multi-line plain", "a: b\n  c\n"},
      {"multi-line flow", "a: [1,\n  2]\n"},
      {"escape", "a: \"\\n\"\n"},
      {"doubled single quote", "a: 'it''s'\n"},
      {"quoted key", "\"a\": 1\n"},
      {"non-ASCII", "a: \xc3\xa9\n"},
      {"tab", "a:\tb\n"},
      {"carriage return", "a: b\r\n"},
      {"DEL", "a: b\x7f\n"},
      {"control character in a long line",
       "a: bbbbbbbbbbbbbbbbbbbbbbbb\x01"
       "bbbbbbbb\n"},
      {"non-ASCII in a long line", "abcdefgh: abcdefghijklmnop\xe2\x82\xacxyz\n"},
      {"duplicate key", "a: 1\na: 2\n"},
      {"empty document", "a: 1\n---\n---\nb: 2\n"},
      {"trailing document marker", "a: 1\n---\n"},
      {"document end marker", "a: 1\n...\n"},
      {"only comments", "# nothing\n"},
      {"empty", ""},
      {"root scalar", "hello\n"},
      {"indented root", "  a: 1\n"},
      {"mapping value in a value", "a: b: c\n"},
      {"entry as a value", "a: - b\n"},
      {"empty entry", "a:\n-\n- b\n"},
      {"key with a blank before the colon", "a : b\n"},
      {"bad indentation", "a:\n    b: 1\n  c: 2\n"},
      {"key in a sequence", "a:\n  - b\n  c: d\n"},
      {"nested flow", "a: [[1]]\n"},
      {"trailing comma", "a: [1, ]\n"},
      {"text after a quoted value", "a: \"b\" c\n"},
      {"comment glued to a quoted value", "a: \"b\"#c\n"},
      {"complex key", "? a\n: b\n"},
      {"directive", "%YAML 1.1\n---\na: 1\n"},
      {"JSON", "{\"a\": 1}\n"},
      {"too deep", "a:\n b:\n  c: 1\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ReadLimits limits;
    if (std::string(c.name) == "too deep") limits.max_depth = 2;
    EXPECT_FALSE(
        read_simple_yaml("job.yaml", std::make_shared<const std::string>(c.text), limits).has_value());
  }
}

TEST(SimpleYaml, ReadManifestsGivesTheSameResultEitherWay) {
  const std::string text = "apiVersion: v1\nkind: PyTorchJob\nmetadata:\n  name: x\n---\nkind: Other\n";
  const auto shared = std::make_shared<const std::string>(text);
  EXPECT_EQ(dump(read_manifests("a.yaml", shared)), dump(read_manifests_with_libyaml("a.yaml", shared)));
}

/// Every YAML file under `dir`; the fast path must match libyaml wherever it answers.
std::size_t check_files_under(const std::filesystem::path& dir) {
  std::size_t answered = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    const auto ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".yaml" && ext != ".yml" && ext != ".json")) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    SCOPED_TRACE(entry.path().string());
    if (fast_path_matches(entry.path().string(), ss.str())) ++answered;
  }
  return answered;
}

TEST(SimpleYaml, MatchesLibyamlOnEveryTestdataFile) {
  EXPECT_GT(check_files_under(std::filesystem::path(KPT_SOURCE_DIR) / "testdata"), 5u);
  // The benchmark's corpus, or any other directory: KPT_SIMPLE_YAML_CORPUS=DIR.
  if (const char* extra = std::getenv("KPT_SIMPLE_YAML_CORPUS"); extra != nullptr && *extra != '\0') {
    EXPECT_GT(check_files_under(extra), 0u);
  }
}

/// Small changes to a realistic job, each a place where a line scanner could go wrong: the fast
/// path must either match libyaml or leave the text to it. KPT_SIMPLE_YAML_MUTATIONS=N runs more.
TEST(SimpleYaml, MatchesLibyamlOnMutatedJobs) {
  const std::string job =
      "# a job\n"
      "apiVersion: kubeflow.org/v1\n"
      "kind: PyTorchJob\n"
      "metadata:\n"
      "  name: train\n"
      "  labels: {team: ml, tier: \"gpu\"}\n"
      "spec:\n"
      "  runPolicy:\n"
      "    cleanPodPolicy: None   # keep pods\n"
      "  pytorchReplicaSpecs:\n"
      "    Worker:\n"
      "      replicas: 2\n"
      "      template:\n"
      "        spec:\n"
      "          containers:\n"
      "          - name: pytorch\n"
      "            image: 'example.com/train:1.0'\n"
      "            command: [\"torchrun\", train.py, -v]\n"
      "            env:\n"
      "              - name: A\n"
      "                value: \"1\"\n"
      "              - name: B\n"
      "                valueFrom:\n"
      "                  fieldRef: {fieldPath: metadata.name}\n"
      "            resources:\n"
      "              limits:\n"
      "                nvidia.com/gpu: 1\n"
      "          tolerations:\n"
      "          - key: x\n"
      "            effect:\n"
      "---\n"
      "apiVersion: v1\n"
      "kind: ConfigMap\n"
      "data:\n"
      "  a: b\n";
  std::size_t rounds = 3000;
  if (const char* n = std::getenv("KPT_SIMPLE_YAML_MUTATIONS"); n != nullptr) rounds = std::stoul(n);
  const std::vector<std::string> pieces = {" ", "  ", ":", ": ", "-", "- ", "#",    " #",    "\"",  "'",
                                           "[", "]",  "{", "}",  ",", "\n", "\n  ", "---\n", "&a ", "*a",
                                           "!", "|",  "?", "\\", "x", "1",  "~",    "<<: ",  "\t",  "..."};
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  const auto next = [&state](std::uint64_t n) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return static_cast<std::size_t>(state % n);
  };
  std::size_t answered = 0;
  for (std::size_t r = 0; r < rounds; ++r) {
    std::string text = job;
    for (std::size_t m = 1 + next(3); m > 0; --m) {
      const auto at = next(text.size() + 1);
      switch (next(3)) {
        case 0:
          text.insert(at, pieces[next(pieces.size())]);
          break;
        case 1:
          text.erase(at, 1 + next(3));
          break;
        default:
          text.replace(at, 1, pieces[next(pieces.size())]);
          break;
      }
    }
    SCOPED_TRACE(r);
    if (fast_path_matches("job.yaml", text)) ++answered;
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_GT(answered, rounds / 10);  // the test reaches the fast path, not only libyaml
}

}  // namespace
}  // namespace kpt::yaml
