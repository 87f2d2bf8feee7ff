#include "schema/k8s_names.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kpt::schema {
namespace {

using Msgs = std::vector<std::string>;

const std::string k_1123_label =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
    "and end "
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const std::string k_1123_subdomain =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const std::string k_1035_label =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
    "validation "
    "is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const std::string k_name_part =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const std::string k_label_value =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start "
    "and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
    "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

struct Case {
  const char* name;
  std::string value;
  Msgs expected;
};

TEST(K8sNames, Dns1123LabelGivesApimachineryMessages) {
  const Case cases[] = {
      {"valid", "my-job-1", {}},
      {"upper case", "My-job", {k_1123_label}},
      {"trailing dash", "job-", {k_1123_label}},
      {"empty", "", {k_1123_label}},
      {"64 chars", std::string(64, 'a'), {"must be no more than 63 characters"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(dns1123_label_errors(c.value), c.expected);
  }
}

TEST(K8sNames, Dns1123SubdomainAllowsDotsAnd253Characters) {
  const Case cases[] = {
      {"valid", "a.b-c.d", {}},
      {"empty part", "a..b", {k_1123_subdomain}},
      {"underscore", "my_job", {k_1123_subdomain}},
      {"253 chars", std::string(253, 'a'), {}},
      {"254 chars", std::string(254, 'a'), {"must be no more than 253 characters"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(dns1123_subdomain_errors(c.value), c.expected);
  }
}

TEST(K8sNames, Dns1035LabelMustStartWithALetter) {
  EXPECT_EQ(dns1035_label_errors("mnist-dp"), Msgs{});
  EXPECT_EQ(dns1035_label_errors("1job"), Msgs{k_1035_label});
  EXPECT_EQ(dns1035_label_errors(std::string(64, 'a')), Msgs{"must be no more than 63 characters"});
}

TEST(K8sNames, QualifiedNamesCheckPrefixAndNameParts) {
  const Case cases[] = {
      {"plain", "app", {}},
      {"prefixed", "training.kubeflow.org/job-name", {}},
      {"bad name part", "app!", {k_name_part}},
      {"empty name", "example.com/", {"name part must be non-empty"}},
      {"empty prefix", "/app", {"prefix part must be non-empty"}},
      {"bad prefix", "Example.com/app", {"prefix part " + k_1123_subdomain}},
      {"long name", std::string(64, 'a'), {"name part must be no more than 63 characters"}},
      {"two slashes",
       "a/b/c",
       {"a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
        "with an "
        "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. "
        "'example.com/MyName')"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(qualified_name_errors(c.value), c.expected);
  }
}

TEST(K8sNames, LabelValuesMayBeEmptyButNotOddlyShaped) {
  EXPECT_EQ(label_value_errors(""), Msgs{});
  EXPECT_EQ(label_value_errors("v1.2_3"), Msgs{});
  EXPECT_EQ(label_value_errors("-x"), Msgs{k_label_value});
  EXPECT_EQ(label_value_errors(std::string(64, 'a')), Msgs{"must be no more than 63 characters"});
}

TEST(K8sNames, AnnotationsMayTotalAtMost256KiB) {
  EXPECT_EQ(annotations_size_errors(262144), Msgs{});
  EXPECT_EQ(annotations_size_errors(262145), Msgs{"must have at most 262144 bytes"});
}

}  // namespace
}  // namespace kpt::schema
