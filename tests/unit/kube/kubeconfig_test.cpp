#include "kube/kubeconfig.hpp"

#include "tests/support/memory_file_system.hpp"
#include "util/base64.hpp"

#include <gtest/gtest.h>

namespace kpt::kube {
namespace {

constexpr const char* k_red = R"(apiVersion: v1
kind: Config
current-context: red
clusters:
- name: shared
  cluster:
    server: https://red.example:6443
    certificate-authority: certs/ca.pem
- name: red-cluster
  cluster:
    server: https://red-only.example
contexts:
- name: red
  context: {cluster: shared, user: red-user, namespace: red-ns}
users:
- name: red-user
  user:
    tokenFile: ../tokens/red
    client-certificate: /abs/cert.pem
)";

constexpr const char* k_blue = R"(apiVersion: v1
kind: Config
current-context: blue
clusters:
- name: shared
  cluster:
    server: https://blue.example:6443
- name: blue-cluster
  cluster:
    server: https://blue-only.example
    insecure-skip-tls-verify: true
contexts:
- name: blue
  context: {cluster: blue-cluster, user: red-user}
users:
- name: red-user
  user:
    token: from-blue
)";

TEST(Kubeconfig, RelativePathsResolveAgainstTheDefiningFilesFolder) {
  auto k = parse_kubeconfig("/home/u/.kube/red.yaml", k_red);
  ASSERT_TRUE(k) << k.error().message;
  EXPECT_EQ(k->clusters.at("shared").certificate_authority, "/home/u/.kube/certs/ca.pem");
  EXPECT_EQ(k->users.at("red-user").token_file, "/home/u/.kube/../tokens/red");
  EXPECT_EQ(k->users.at("red-user").client_certificate, "/abs/cert.pem");
  EXPECT_EQ(k->contexts.at("red").namespace_, "red-ns");
}

TEST(Kubeconfig, KubeconfigListMergesWithTheFirstFileWinningPerNameAndCurrentContext) {
  MemoryFileSystem fs;
  fs.add("/w/red.yaml", k_red);
  fs.add("/w/sub/blue.yaml", k_blue);
  auto k = load_kubeconfig({"", std::string("sub/blue.yaml:/w/missing.yaml:red.yaml"), "/home/u", "/w"}, fs);
  ASSERT_TRUE(k) << k.error().message;
  EXPECT_EQ(k->current_context, "blue");
  EXPECT_EQ(k->clusters.at("shared").server, "https://blue.example:6443");
  EXPECT_EQ(k->clusters.at("red-cluster").server, "https://red-only.example");
  // The first definition of red-user is taken whole: no tokenFile merged in from red.yaml.
  EXPECT_EQ(k->users.at("red-user").token, "from-blue");
  EXPECT_EQ(k->users.at("red-user").token_file, "");
  EXPECT_EQ(k->files, (std::vector<std::string>{"/w/sub/blue.yaml", "/w/red.yaml"}));
}

TEST(Kubeconfig, ExplicitKubeconfigLoadsOnlyThatFileAndAMissingOneIsAnError) {
  MemoryFileSystem fs;
  fs.add("/w/red.yaml", k_red);
  fs.add("/w/blue.yaml", k_blue);
  auto k = load_kubeconfig({"red.yaml", std::string("/w/blue.yaml"), "/home/u", "/w"}, fs);
  ASSERT_TRUE(k) << k.error().message;
  EXPECT_EQ(k->current_context, "red");
  EXPECT_EQ(k->clusters.count("blue-cluster"), 0u);

  auto missing = load_kubeconfig({"nope.yaml", std::nullopt, "/home/u", "/w"}, fs);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "stat nope.yaml: no such file or directory");
}

TEST(Kubeconfig, WithoutFlagOrEnvTheHomeConfigIsUsedAndItsAbsenceIsEmpty) {
  MemoryFileSystem fs;
  auto none = load_kubeconfig({"", std::nullopt, "/home/u", "/w"}, fs);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  fs.add("/home/u/.kube/config", k_red);
  auto k = load_kubeconfig({"", std::nullopt, "/home/u", "/w"}, fs);
  ASSERT_TRUE(k);
  EXPECT_EQ(k->current_context, "red");
}

TEST(Kubeconfig, DataFieldsAreDecodedAndExecIsParsed) {
  const std::string text =
      "clusters:\n- name: c\n  cluster:\n    server: https://x\n"
      "    certificate-authority-data: " +
      util::base64_encode("PEM-CA") +
      "\n"
      "    extensions:\n    - name: client.authentication.k8s.io/exec\n"
      "      extension: {audience: x}\n"
      "users:\n- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
      "      command: ./bin/cred\n      args: [get, --json]\n"
      "      env: [{name: A, value: b}]\n      interactiveMode: Never\n"
      "      provideClusterInfo: true\n      installHint: install it\n";
  auto k = parse_kubeconfig("/cfg/k.yaml", text);
  ASSERT_TRUE(k) << k.error().message;
  EXPECT_EQ(k->clusters.at("c").certificate_authority_data, "PEM-CA");
  EXPECT_EQ(k->clusters.at("c").exec_extension_json, R"({"audience":"x"})");
  const auto& e = *k->users.at("u").exec;
  EXPECT_EQ(e.command, "/cfg/./bin/cred");
  EXPECT_EQ(e.args, (std::vector<std::string>{"get", "--json"}));
  ASSERT_EQ(e.env.size(), 1u);
  EXPECT_EQ(e.env[0].value, "b");
  EXPECT_TRUE(e.provide_cluster_info);
  EXPECT_EQ(e.interactive_mode, "Never");
  EXPECT_EQ(e.install_hint, "install it");
}

TEST(Kubeconfig, MalformedFilesGiveKubectlsPrefixAndThePlaceOfTheProblem) {
  struct Case {
    const char* name;
    const char* text;
    const char* message;
  } cases[] = {
      {"yaml syntax", "clusters: [\n",
       "error loading config file \"/k.yaml\": '/k.yaml' line 2, column 1: did not find expected node "
       "content (while parsing a flow node at line 2)"},
      {"duplicate key", "current-context: a\ncurrent-context: b\n",
       "error loading config file \"/k.yaml\": '/k.yaml' line 2, column 1: duplicate key 'current-context' "
       "(first at line 1)"},
      {"alias bomb",
       "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
       "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
       "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n",
       "error loading config file \"/k.yaml\": '/k.yaml' line 6, column 36: alias '*e' expands the document "
       "past 1000000 nodes"},
      {"wrong type", "users:\n- name: u\n  user: {password: yes}\n",
       "error loading config file \"/k.yaml\": users[0].user.password: expected a string"},
      {"bad base64", "clusters:\n- name: c\n  cluster: {certificate-authority-data: '%%%'}\n",
       "error loading config file \"/k.yaml\": clusters[0].cluster.certificate-authority-data: expected "
       "base64 data"},
      {"not a mapping", "- a\n", "error loading config file \"/k.yaml\": expected a mapping at the top"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto k = parse_kubeconfig("/k.yaml", c.text);
    ASSERT_FALSE(k);
    EXPECT_EQ(k.error().message, c.message);
  }
}

TEST(Kubeconfig, AnchorsAndAliasesResolveAsKubectlsYamlReaderDoes) {
  auto k = parse_kubeconfig("/k.yaml",
                            "clusters:\n- name: a\n  cluster: &c {server: 'https://10.0.0.1:6443'}\n"
                            "- name: b\n  cluster: *c\n");
  ASSERT_TRUE(k) << k.error().message;
  ASSERT_EQ(k->clusters.size(), 2u);
  EXPECT_EQ(k->clusters.at("b").server, "https://10.0.0.1:6443");
}

}  // namespace
}  // namespace kpt::kube
