#include "tests/unit/yaml/reader_test_support.hpp"
#include "yaml/manifest_reader.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace kpt::yaml {
namespace {

using testing::describe;
using testing::read_text;
using namespace std::string_literals;

struct Case {
  const char* name;
  std::string text;
  std::vector<std::string> findings;  ///< describe() of each, in order
  std::size_t documents;
};

std::vector<Case> cases() {
  return {
      {"duplicate key points at the second and names the first",
       "spec:\n  replicas: 1\n  template: {}\n  replicas: 2\n",
       {"job.yaml:4:3 [yaml.duplicate-key] spec.replicas: duplicate key 'replicas' (first at line 2) | hint: "
        "remove "
        "one of them; Kubernetes rejects duplicate keys"},
       1},
      {"duplicate key inside a sequence item",
       "containers:\n- name: a\n  name: b\n",
       {"job.yaml:3:3 [yaml.duplicate-key] containers[0].name: duplicate key 'name' (first at line 2) | "
        "hint: "
        "remove one of them; Kubernetes rejects duplicate keys"},
       1},
      {"tab in block indentation",
       "a:\n  b: 1\n\tc: 2\n",
       {"job.yaml:3:1 [yaml.tab-indent] : tab character in indentation | hint: indent with spaces; YAML does "
        "not "
        "allow tabs for indentation"},
       0},
      {"tab after a sequence dash",
       "a:\n  - x\n  -\ty\n",
       {"job.yaml:3:4 [yaml.tab-indent] : tab character in indentation | hint: indent with spaces; YAML does "
        "not "
        "allow tabs for indentation"},
       0},
      {"unclosed flow sequence",
       "k: [a, b\n",
       {"job.yaml:2:1 [yaml.syntax] : did not find expected ',' or ']' (while parsing a flow sequence at "
        "line 1)"},
       0},
      {"mapping value in the wrong place",
       "a: b: c\n",
       {"job.yaml:1:5 [yaml.syntax] : mapping values are not allowed in this context"},
       0},
      {"unterminated quoted scalar",
       "a: \"unterminated\n",
       {"job.yaml:2:1 [yaml.syntax] : found unexpected end of stream (while scanning a quoted scalar at line "
        "1)"},
       0},
      {"syntax error keeps earlier documents and stops the file",
       "a: 'x'\n---\nb: {c: 1\n---\nd: 1\n",
       {"job.yaml:4:1 [yaml.syntax] : did not find expected ',' or '}' (while parsing a flow mapping at line "
        "3)"},
       1},
      {"control character",
       "a: 1\nb: \x01\n",
       {"job.yaml:2:4 [yaml.syntax] : control characters are not allowed"},
       0},
      {"NUL byte means binary",
       "a: 1\nbb: x\0y\n"s,
       {"job.yaml:2:6 [input.binary] : file looks binary: NUL byte at line 2, column 6 | hint: validate YAML "
        "or "
        "JSON text files only"},
       0},
      {"invalid UTF-8 at the bad byte, counting characters",
       "a: 1\nname: \xC3\xA9\xC3\x28\n",
       {"job.yaml:2:8 [input.invalid-utf8] : invalid UTF-8: byte 0xc3 does not start a valid character | "
        "hint: "
        "save the file as UTF-8"},
       0},
      {"UTF-16 input",
       "\xFF\xFE"
       "a\0:\0"s,
       {"job.yaml:1:1 [input.invalid-utf8] : invalid UTF-8: byte 0xff does not start a valid character | "
        "hint: the "
        "file looks UTF-16 encoded; save it as UTF-8"},
       0},
      {"overlong UTF-8 encoding",
       "a: \xC0\xAF\n",
       {"job.yaml:1:4 [input.invalid-utf8] : invalid UTF-8: byte 0xc0 does not start a valid character | "
        "hint: "
        "save the file as UTF-8"},
       0},
      {"unknown anchor drops the document only",
       "a: *nope\n---\nb: 1\n",
       {"job.yaml:1:4 [yaml.unknown-anchor] a: unknown anchor 'nope' referenced | hint: define the anchor "
        "with "
        "'&nope' before using it"},
       1},
      {"anchor that contains itself",
       "a: &x [*x]\n",
       {"job.yaml:1:8 [yaml.recursive-alias] a[0]: anchor 'x' value contains itself"},
       0},
      {"merge key with a scalar",
       "a:\n  <<: 5\n  b: 1\n",
       {"job.yaml:2:7 [yaml.bad-merge] a.<<: the merge key '<<' needs a mapping or a list of mappings"},
       1},
      {"sequence as a mapping key",
       "? [a]\n: 1\nb: 2\n",
       {"job.yaml:1:3 [yaml.complex-key] : a mapping key must be a string, not an array"},
       1},
  };
}

TEST(ReaderFindings, ReportsEachProblemWithItsExactMessageAndPosition) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    const auto result = read_text(c.text);
    std::vector<std::string> got;
    for (const auto& d : result.findings) {
      EXPECT_EQ(d.severity, Severity::error);
      got.push_back(describe(d));
    }
    EXPECT_EQ(got, c.findings);
    EXPECT_EQ(result.documents.size(), c.documents);
  }
}

TEST(ReaderFindings, RefusesTextLargerThanMaxBytes) {
  ReadLimits limits;
  limits.max_bytes = 4;
  const auto result = read_text("a: 12\n", limits);
  EXPECT_TRUE(result.documents.empty());
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(describe(result.findings[0]),
            "job.yaml:1:1 [input.too-large] : file is larger than the limit of 4 bytes | hint: raise the "
            "limit with "
            "--max-bytes");
}

TEST(ReaderFindings, StopsAtMaxDocuments) {
  ReadLimits limits;
  limits.max_documents = 2;
  const auto result = read_text("a: 1\n---\nb: 2\n---\nc: 3\n", limits);
  EXPECT_EQ(result.documents.size(), 2u);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(
      describe(result.findings[0]),
      "job.yaml:4:1 [input.too-many-documents] : more than 2 documents in one file | hint: split the file");
}

TEST(ReaderFindings, ReportsTheNodeThatNestsTooDeep) {
  ReadLimits limits;
  limits.max_depth = 3;
  const auto result = read_text("a:\n  b:\n    c:\n      d: 1\n---\nok: 1\n", limits);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(describe(result.findings[0]), "job.yaml:4:7 [yaml.too-deep] a.b.c: nesting deeper than 3 levels");
  EXPECT_TRUE(result.documents.empty());  // the rest of the file is not read either
}

TEST(ReaderFindings, AcceptsNestingUpToTheDepthLimit) {
  ReadLimits limits;
  limits.max_depth = 3;
  const auto result = read_text("a:\n  b:\n    c: 1\n", limits);
  EXPECT_TRUE(result.findings.empty());
  EXPECT_EQ(result.documents.size(), 1u);
}

TEST(ReaderFindings, CountsNodesWithAliasesExpanded) {
  ReadLimits limits;
  limits.max_nodes = 20;
  // 1 root + 2 keys + list a (1 + 4) + list b (1) + two copies of a (2 x 5) = 19: fits.
  const auto fits = read_text("a: &a [1, 2, 3, 4]\nb: [*a, *a]\n", limits);
  EXPECT_TRUE(fits.findings.empty());
  const auto over = read_text("a: &a [1, 2, 3, 4]\nb: [*a, *a, *a]\n---\nc: 1\n", limits);
  ASSERT_EQ(over.findings.size(), 1u);
  EXPECT_EQ(
      describe(over.findings[0]),
      "job.yaml:2:13 [yaml.too-many-nodes] b[2]: alias '*a' expands the document past 20 nodes | hint: every "
      "alias is expanded as Kubernetes expands it; nested aliases multiply, so write the values out");
  ASSERT_EQ(over.documents.size(), 1u);
  EXPECT_EQ(over.documents[0].index, 1u);
}

TEST(ReaderFindings, CountsPlainNodesAgainstTheLimit) {
  ReadLimits limits;
  limits.max_nodes = 5;
  const auto result = read_text("[1, 2, 3, 4, 5]\n", limits);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(
      describe(result.findings[0]),
      "job.yaml:1:14 [yaml.too-many-nodes] [4]: document has more than 5 nodes | hint: split the document or "
      "raise the node limit");
}

}  // namespace
}  // namespace kpt::yaml
