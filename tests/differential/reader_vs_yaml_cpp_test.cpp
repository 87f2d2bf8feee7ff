// The manifest reader against yaml-cpp resolved with go-yaml v2 rules (goyaml_oracle.hpp): the
// same documents, keys, scalars and types on every fixture and on seeded mutations of them. Where
// the two may answer differently is listed in README.md next to this file, and each such
// difference is pinned by a test below.
#include "tests/differential/goyaml_oracle.hpp"
#include "tests/differential/isolated_oracle.hpp"
#include "tests/differential/mutate.hpp"
#include "yaml/manifest_reader.hpp"
#include "yaml/node_json.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <set>

namespace kpt::differential {
namespace {

using json = nlohmann::json;

/// Our tree as JSON, with integers past int64 kept apart so they can be compared with go-yaml's
/// (which keeps them up to uint64 and makes larger ones floats).
json ours_json(const yaml::Node& n) {
  if (n.kind == yaml::NodeKind::integer && n.int_overflow) {
    const json as_go = resolve_plain(n.text);
    return as_go.is_number_unsigned() ? as_go : json{{"$int-overflow", n.text}};
  }
  if (n.is_seq()) {
    json out = json::array();
    for (const auto& item : n.items) out.push_back(ours_json(item));
    return out;
  }
  if (n.is_map()) {
    json out = json::object();
    for (std::size_t i = 0; i < n.keys.size(); ++i) out[n.keys[i]] = ours_json(n.items[i]);
    return out;
  }
  return yaml::to_json(n);
}

/// Where `a` and `b` first differ ("" when equal); NaN equals NaN.
std::string first_difference(const json& a, const json& b, const std::string& path = "$") {
  if (a.is_number_float() && b.is_number_float() && std::isnan(a.get<double>()) &&
      std::isnan(b.get<double>()))
    return "";
  if (a.is_number() && b.is_number() && a.is_number_float() != b.is_number_float())
    return path + ": " + a.dump() + " vs " + b.dump() + " (integer and float)";
  if (a.type() != b.type()) return path + ": " + a.dump() + " vs " + b.dump();
  if (a.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key())) return path + "." + it.key() + ": only ours has it";
      if (auto d = first_difference(it.value(), b[it.key()], path + "." + it.key()); !d.empty()) return d;
    }
    for (auto it = b.begin(); it != b.end(); ++it)
      if (!a.contains(it.key())) return path + "." + it.key() + ": only the oracle has it";
    return "";
  }
  if (a.is_array()) {
    if (a.size() != b.size())
      return path + ": " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " items";
    for (std::size_t i = 0; i < a.size(); ++i)
      if (auto d = first_difference(a[i], b[i], path + "[" + std::to_string(i) + "]"); !d.empty()) return d;
    return "";
  }
  return a == b ? "" : path + ": " + a.dump() + " vs " + b.dump();
}

bool has_big_integer(const json& j) {
  if (j.is_object() && j.contains("$int-overflow")) return true;
  if (j.is_structured())
    for (const auto& v : j)
      if (has_big_integer(v)) return true;
  return false;
}

struct Verdicts {
  std::map<std::string, int> counts;       ///< category -> inputs
  std::map<std::string, std::string> one;  ///< category -> an example input
  int agreed = 0;
  int compared_trees = 0;
  void note(const std::string& category, const std::string& input) {
    ++counts[category];
    one.emplace(category, input);
  }
};

/// The documented ways the two may differ (README.md); anything else fails the test.
const std::set<std::string>& documented() {
  static const std::set<std::string> known = {
      "ours rejects: yaml.duplicate-key",
      "ours rejects: yaml.too-deep",
      "ours rejects: yaml.too-many-nodes",
      "ours rejects: input.binary",
      "ours rejects: input.invalid-utf8",
      "ours rejects: yaml.syntax",
      "ours rejects: yaml.tab-indent",
      "ours rejects: yaml.bad-tag",
      "both reject",
      "tree: integer beyond uint64",
      "yaml-cpp rejects what libyaml accepts",
      "tree: !!binary stays base64 text",
      "ours rejects, yaml-cpp hangs",
      "tree: a byte order mark past the start",
      "tree: a lone CR as a line break",
  };
  return known;
}

/// A CR not followed by LF: a line break to libyaml (and go-yaml), not always to yaml-cpp 0.7.
bool has_lone_cr(const std::string& text) {
  for (std::size_t i = text.find('\r'); i != std::string::npos; i = text.find('\r', i + 1)) {
    if (i + 1 == text.size() || text[i + 1] != '\n') return true;
  }
  return false;
}

void compare_one(const std::string& text, Verdicts& v) {
  const auto ours = yaml::read_manifests("in.yaml", std::make_shared<const std::string>(text));
  const auto oracle = oracle_parse_isolated(text, std::chrono::seconds(2));
  const Diagnostic* error = nullptr;
  for (const auto& d : ours.findings)
    if (d.severity == Severity::error && error == nullptr) error = &d;
  if (error != nullptr || oracle.error) {
    if (error != nullptr && oracle.error == k_oracle_hung) {
      v.note("ours rejects, yaml-cpp hangs", text);
    } else if (error != nullptr && oracle.error) {
      v.note("both reject", text);
    } else if (error != nullptr) {
      v.note("ours rejects: " + error->rule_id, text);
    } else {
      v.note("yaml-cpp rejects what libyaml accepts", text + "\n# yaml-cpp: " + *oracle.error);
    }
    return;
  }
  ++v.compared_trees;
  json mine = json::array();
  for (const auto& doc : ours.documents) mine.push_back(ours_json(doc.root));
  const json theirs(oracle.documents);
  const auto diff = first_difference(mine, theirs);
  if (diff.empty()) {
    ++v.agreed;
  } else if (has_big_integer(mine)) {
    v.note("tree: integer beyond uint64", text);
  } else if (text.find("\xEF\xBB\xBF", 1) != std::string::npos) {
    v.note("tree: a byte order mark past the start", text);
  } else if (has_lone_cr(text)) {
    v.note("tree: a lone CR as a line break", text);
  } else if (text.find("!!binary") != std::string::npos) {
    v.note("tree: !!binary stays base64 text", text);
  } else {
    v.note("tree: " + diff, text);
  }
}

void expect_only_documented(const Verdicts& v) {
  std::cout << "[differential] trees compared " << v.compared_trees << ", equal " << v.agreed << "\n";
  for (const auto& [category, n] : v.counts) {
    std::cout << "[differential] " << n << " x " << category << "\n";
    EXPECT_TRUE(documented().count(category) != 0)
        << "undocumented difference '" << category << "', e.g. on:\n"
        << v.one.at(category);
  }
}

std::vector<std::filesystem::path> all_fixtures() {
  auto files = fixtures_under(std::filesystem::path(KPT_SOURCE_DIR) / "testdata", 256 * 1024);
  for (auto& p :
       fixtures_under(std::filesystem::path(KPT_SOURCE_DIR) / "tests/fuzz/corpus/manifest_reader", 64 * 1024))
    files.push_back(p);
  return files;
}

TEST(ReaderVsYamlCpp, EveryFixtureReadsToTheSameTrees) {
  Verdicts v;
  const auto files = all_fixtures();
  for (const auto& path : files) compare_one(read_text(path), v);
  expect_only_documented(v);
  EXPECT_GT(v.agreed, 40);
}

TEST(ReaderVsYamlCpp, MutatedFixturesReadToTheSameTreesOrBothReject) {
  const auto seed = run_seed();
  std::cout << "[differential] seed " << seed << " (KPT_DIFF_SEED replays it)\n";
  std::mt19937_64 rng(seed);
  Verdicts v;
  const int per_input = mutations_per_input(12);
  for (const auto& path : all_fixtures()) {
    const auto text = read_text(path);
    if (text.size() > 16 * 1024) continue;  // yaml-cpp is slow on big inputs; mutations of small ones suffice
    for (int i = 0; i < per_input; ++i) compare_one(mutate(text, rng), v);
  }
  expect_only_documented(v);
  EXPECT_GT(v.agreed, 6 * per_input);
}

/// The first error finding's rule id of our reader on `text`, "" when it reads cleanly.
std::string our_error(const std::string& text) {
  const auto read = yaml::read_manifests("in.yaml", std::make_shared<const std::string>(text));
  for (const auto& d : read.findings)
    if (d.severity == Severity::error) return d.rule_id;
  return "";
}

// The listed differences (README.md here), each pinned so that a change on either side shows.
TEST(ReaderVsYamlCppKnownDifferences, YamlCppHangsOnACommaKeyThatOurReaderRejects) {
  EXPECT_EQ(our_error(",: 1\n"), "yaml.syntax");
  const auto oracle = oracle_parse_isolated(",: 1\n", std::chrono::milliseconds(500));
  ASSERT_TRUE(oracle.error.has_value());
  EXPECT_EQ(*oracle.error, k_oracle_hung);
}

TEST(ReaderVsYamlCppKnownDifferences, BinaryStaysBase64TextWhereGoYamlDecodesIt) {
  const std::string text = "g: !!binary aGk=\n";
  const auto ours = yaml::read_manifests("in.yaml", std::make_shared<const std::string>(text));
  ASSERT_EQ(ours.documents.size(), 1u);
  EXPECT_EQ(yaml::to_json(ours.documents[0].root), json({{"g", "aGk="}}));
  const auto oracle = oracle_parse_isolated(text, std::chrono::seconds(5));
  ASSERT_EQ(oracle.documents.size(), 1u);
  EXPECT_EQ(oracle.documents[0], json({{"g", "hi"}}));
}

TEST(ReaderVsYamlCppKnownDifferences, DuplicateKeysAreOurErrorAndGoYamlsLastValue) {
  EXPECT_EQ(our_error("a: 1\na: 2\n"), "yaml.duplicate-key");
  const auto oracle = oracle_parse_isolated("a: 1\na: 2\n", std::chrono::seconds(5));
  ASSERT_EQ(oracle.documents.size(), 1u);
  EXPECT_EQ(oracle.documents[0], json({{"a", 2}}));
}

TEST(ReaderVsYamlCppKnownDifferences, AliasBombsAreRefusedByBoth) {
  std::string text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'h'; ++c)
    text += std::string(1, c) + ": &" + c + " [*" + static_cast<char>(c - 1) + ", *" +
            static_cast<char>(c - 1) + ", *" + static_cast<char>(c - 1) + ", *" + static_cast<char>(c - 1) +
            ", *" + static_cast<char>(c - 1) + ", *" + static_cast<char>(c - 1) + ", *" +
            static_cast<char>(c - 1) + ", *" + static_cast<char>(c - 1) + ", *" + static_cast<char>(c - 1) +
            ", *" + static_cast<char>(c - 1) + "]\n";
  EXPECT_NE(our_error(text), "");
  const auto oracle = oracle_parse_isolated(text, std::chrono::seconds(10));
  ASSERT_TRUE(oracle.error.has_value());
  EXPECT_EQ(*oracle.error, "document expands past 200000 nodes");
}

}  // namespace
}  // namespace kpt::differential
