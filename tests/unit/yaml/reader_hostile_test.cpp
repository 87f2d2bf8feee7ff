#include "tests/unit/yaml/reader_test_support.hpp"
#include "yaml/manifest_reader.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace kpt::yaml {
namespace {

using testing::count_nodes;
using testing::describe;
using testing::fixture;
using testing::read_text;

std::string repeat(std::string_view part, std::size_t n) {
  std::string out;
  out.reserve(part.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += part;
  return out;
}

std::string billion_laughs() {
  std::string text = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
  for (char c = 'b'; c <= 'i'; ++c) {
    const std::string prev(1, static_cast<char>(c - 1));
    text += std::string(1, c) + ": &" + c + " [" + repeat("*" + prev + ",", 8) + "*" + prev + "]\n";
  }
  return text;
}

std::string random_bytes(std::size_t n, unsigned seed, std::string_view alphabet = {}) {
  std::mt19937 gen(seed);
  std::string out(n, ' ');
  for (auto& c : out) {
    const auto r = gen();
    c = alphabet.empty() ? static_cast<char>(r & 0xFFU) : alphabet[r % alphabet.size()];
  }
  return out;
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

struct Case {
  const char* name;
  std::string text;
  std::vector<std::string> rules;  ///< rule ids of the findings, in order ("*" = any, at least one)
  std::size_t documents;
  std::string first_finding = {};  ///< describe() of the first finding, when pinned
};

std::vector<Case> corpus() {
  const std::string job = fixture("job.yaml");
  std::vector<Case> out;
  out.push_back(
      {"flow nesting 10^5 deep",
       repeat("[", 100000) + repeat("]", 100000),
       {"yaml.too-deep"},
       0,
       "job.yaml:1:101 [yaml.too-deep] " + repeat("[0]", 100) + ": nesting deeper than 100 levels"});
  out.push_back({"block sequence nesting 10^5 deep", repeat("- ", 100000) + "x\n", {"yaml.too-deep"}, 0});
  out.push_back({"flow mapping nesting 10^5 deep",
                 repeat("{a: ", 100000) + "1" + repeat("}", 100000),
                 {"yaml.too-deep"},
                 0});
  out.push_back(
      {"billion laughs",
       billion_laughs(),
       {"yaml.too-many-nodes"},
       0,
       "job.yaml:7:8 [yaml.too-many-nodes] g[0]: alias '*f' expands the document past 1000000 nodes | "
       "hint: every alias is expanded as Kubernetes expands it; nested aliases multiply, so write the "
       "values out"});
  out.push_back({"wide alias fan-out",
                 "a: &a [" + repeat("x, ", 999) + "x]\nb: [" + repeat("*a, ", 1999) + "*a]\n",
                 {"yaml.too-many-nodes"},
                 0});
  out.push_back({"random bytes", random_bytes(64 * 1024, 42), {"*"}, 0});
  out.push_back(
      {"random YAML punctuation", random_bytes(64 * 1024, 7, "ab1:-[]{}, \n\t'\"&*!|>#%@?"), {"*"}, 0});
  out.push_back({"1 MB single line scalar", "a: " + std::string(1 << 20, 'x') + "\n", {}, 1});
  out.push_back({"1 MB single line list", "[" + repeat("1,", 500000) + "1]", {}, 1});
  out.push_back({"1 MB unterminated quote", "a: \"" + std::string(1 << 20, 'x'), {"yaml.syntax"}, 0});
  out.push_back({"CRLF line endings", replace_all(job, "\n", "\r\n"), {}, 2});
  out.push_back({"byte order mark", "\xEF\xBB\xBF" + job, {}, 2});
  out.push_back({"20,000 empty documents", repeat("---\n", 20000), {"input.too-many-documents"}, 0});
  std::string keys;
  for (int i = 0; i < 50000; ++i) keys += "key" + std::to_string(i) + ": 1\n";
  out.push_back({"mapping of 50,000 keys", keys, {}, 1});
  return out;
}

TEST(HostileInput, EndsWithBoundedFindingsAndNodeCounts) {
  const ReadLimits limits;
  for (const auto& c : corpus()) {
    SCOPED_TRACE(c.name);
    const auto result = read_text(c.text, limits);
    if (c.rules == std::vector<std::string>{"*"}) {
      EXPECT_GE(result.findings.size(), 1u);
    } else {
      std::vector<std::string> rules;
      for (const auto& d : result.findings) rules.push_back(d.rule_id);
      EXPECT_EQ(rules, c.rules) << (result.findings.empty() ? "" : describe(result.findings.front()));
      EXPECT_EQ(result.documents.size(), c.documents);
    }
    if (!c.first_finding.empty() && !result.findings.empty()) {
      EXPECT_EQ(describe(result.findings.front()), c.first_finding);
    }
    for (const auto& doc : result.documents) EXPECT_LE(count_nodes(doc.root), limits.max_nodes);
  }
}

TEST(HostileInput, ReadsCrlfAndBomFilesWithTheSamePositionsAsPlainOnes) {
  const std::string job = fixture("job.yaml");
  const auto plain = read_text(job);
  for (const auto& variant : {replace_all(job, "\n", "\r\n"), "\xEF\xBB\xBF" + job}) {
    const auto other = read_text(variant);
    ASSERT_EQ(other.documents.size(), plain.documents.size());
    const auto* a = plain.documents[0].root.at_path({"spec", "pytorchReplicaSpecs", "Worker", "replicas"});
    const auto* b = other.documents[0].root.at_path({"spec", "pytorchReplicaSpecs", "Worker", "replicas"});
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->pos.line, a->pos.line);
    EXPECT_EQ(b->pos.col, a->pos.col);
    EXPECT_EQ(other.documents[1].start.line, plain.documents[1].start.line);
  }
}

TEST(HostileInput, SurvivesEveryTruncationOfARealisticJob) {
  const std::string job = fixture("job.yaml");
  for (std::size_t n = 0; n <= job.size(); ++n) {
    const auto result = read_text(job.substr(0, n));
    for (const auto& d : result.findings) {
      EXPECT_GE(d.location.line, 1u) << n;
      EXPECT_FALSE(d.message.empty()) << n;
    }
  }
}

}  // namespace
}  // namespace kpt::yaml
