#include "kube/resolved_config.hpp"

#include "tests/support/memory_file_system.hpp"

#include <gtest/gtest.h>

// The case tables name only the flags each case sets.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace kpt::kube {
namespace {

constexpr const char* k_config = R"(current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://dev.example:6443
    certificate-authority: ca.pem
    tls-server-name: dev.internal
- name: prod-cluster
  cluster:
    server: https://prod.example
    insecure-skip-tls-verify: true
contexts:
- name: dev
  context: {cluster: dev-cluster, user: dev-user, namespace: team-a}
- name: prod
  context: {cluster: prod-cluster, user: basic-user}
users:
- name: dev-user
  user: {token: dev-token}
- name: basic-user
  user: {username: admin, password: secret}
- name: file-user
  user: {tokenFile: tok}
- name: both
  user: {token: t, username: a, password: b}
- name: cert-no-key
  user: {client-certificate: missing.pem}
- name: extra-no-as
  user: {as-groups: [g]}
- name: v1-exec
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1, command: cred}
)";

struct Fixture {
  MemoryFileSystem fs;
  ResolveInputs in;
  Fixture() {
    fs.add("/cfg/config", k_config);
    fs.add("/cfg/ca.pem", "CA");
    in.flags.kubeconfig = "/cfg/config";
    in.cwd = "/work";
    in.service_account_dir = "/sa";
  }
  Expected<ResolvedConfig> resolve() { return load_and_resolve(in, fs); }
};

TEST(ResolveConfig, CurrentContextGivesServerNamespaceUserAndCaFromTheKubeconfig) {
  Fixture f;
  auto c = f.resolve();
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->server, "https://dev.example:6443");
  EXPECT_EQ(c->namespace_, "team-a");
  EXPECT_EQ(c->context, "dev");
  EXPECT_EQ(c->user, "dev-user");
  EXPECT_EQ(c->ca_file, "/cfg/ca.pem");
  EXPECT_EQ(c->tls_server_name, "dev.internal");
  EXPECT_EQ(c->auth, AuthKind::token);
}

TEST(ResolveConfig, FlagsOverrideContextClusterUserNamespaceAndServer) {
  struct Case {
    const char* name;
    ConnectionFlags flags;
    std::string server, ns, user, ca, tls;
    AuthKind auth;
    bool insecure;
  } cases[] = {
      {"--context",
       {.context = "prod"},
       "https://prod.example",
       "default",
       "basic-user",
       "",
       "",
       AuthKind::basic,
       true},
      {"--cluster",
       {.cluster = "prod-cluster"},
       "https://prod.example",
       "team-a",
       "dev-user",
       "",
       "",
       AuthKind::token,
       true},
      {"--user",
       {.user = "file-user"},
       "https://dev.example:6443",
       "team-a",
       "file-user",
       "/cfg/ca.pem",
       "dev.internal",
       AuthKind::token_file,
       false},
      {"-n",
       {.namespace_ = "other"},
       "https://dev.example:6443",
       "other",
       "dev-user",
       "/cfg/ca.pem",
       "dev.internal",
       AuthKind::token,
       false},
      {"--server clears tls-server-name",
       {.server = "https://1.2.3.4"},
       "https://1.2.3.4",
       "team-a",
       "dev-user",
       "/cfg/ca.pem",
       "",
       AuthKind::token,
       false},
      {"--server with --tls-server-name",
       {.server = "https://1.2.3.4", .tls_server_name = "n"},
       "https://1.2.3.4",
       "team-a",
       "dev-user",
       "/cfg/ca.pem",
       "n",
       AuthKind::token,
       false},
      {"--insecure clears the ca",
       {.insecure_skip_tls_verify = true},
       "https://dev.example:6443",
       "team-a",
       "dev-user",
       "",
       "dev.internal",
       AuthKind::token,
       true},
      {"--certificate-authority clears insecure",
       {.context = "prod", .certificate_authority = "ca.pem"},
       "https://prod.example",
       "default",
       "basic-user",
       "/work/ca.pem",
       "",
       AuthKind::basic,
       false},
  };
  for (auto& c : cases) {
    SCOPED_TRACE(c.name);
    Fixture f;
    f.fs.add("/work/ca.pem", "CA2");
    f.fs.add("/cfg/tok", "file-token");
    c.flags.kubeconfig = "/cfg/config";
    f.in.flags = c.flags;
    auto r = f.resolve();
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->server, c.server);
    EXPECT_EQ(r->namespace_, c.ns);
    EXPECT_EQ(r->user, c.user);
    EXPECT_EQ(r->ca_file, c.ca);
    EXPECT_EQ(r->tls_server_name, c.tls);
    EXPECT_EQ(r->auth, c.auth);
    EXPECT_EQ(r->insecure_skip_tls_verify, c.insecure);
  }
}

TEST(ResolveConfig, TokenFlagReplacesTokenFileAndWinsOverExec) {
  Fixture f;
  f.in.flags.user = "v1-exec";
  f.in.flags.token = "flag-token";
  f.fs.add("/cfg/tok", "x");
  auto c = f.resolve();
  // v1 exec without interactiveMode is a validation error even when the token flag is set.
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message,
            "interactiveMode must be specified for v1-exec to use exec authentication plugin");
  f.in.flags.user = "file-user";
  c = f.resolve();
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->auth, AuthKind::token);
  EXPECT_EQ(c->token, "flag-token");
  EXPECT_EQ(c->token_file, "");
}

TEST(ResolveConfig, ValidationErrorsAreWordedAsKubectlWordsThem) {
  struct Case {
    const char* name;
    ConnectionFlags flags;
    const char* message;
  } cases[] = {
      {"missing context",
       {.context = "nope"},
       "error in configuration: context was not found for specified context: nope"},
      {"missing cluster", {.cluster = "nope"}, "no server found for cluster \"nope\""},
      {"missing user", {.user = "nope"}, "auth info \"nope\" does not exist"},
      {"two methods",
       {.user = "both"},
       "more than one authentication method found for both; found [token basicAuth], only one is allowed"},
      {"cert without key",
       {.user = "cert-no-key"},
       "error in configuration: client-key-data or client-key must be specified for cert-no-key to use the "
       "clientCert authentication method.; "
       "unable to read client-cert /cfg/missing.pem for cert-no-key due to open /cfg/missing.pem: no such "
       "file or directory"},
      {"groups without as",
       {.user = "extra-no-as"},
       "requesting uid, groups or user-extra for extra-no-as without impersonating a user"},
      {"unreadable ca",
       {.certificate_authority = "/nope.pem"},
       "unable to read certificate-authority /nope.pem for dev-cluster due to open /nope.pem: no such file "
       "or directory"},
      {"bad timeout",
       {.request_timeout = "3x"},
       "invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a "
       "corresponding time unit (e.g. 1s | 2m | 3h)"},
  };
  for (auto& c : cases) {
    SCOPED_TRACE(c.name);
    Fixture f;
    c.flags.kubeconfig = "/cfg/config";
    if (c.flags.request_timeout.empty()) c.flags.request_timeout = "0";
    f.in.flags = c.flags;
    auto r = f.resolve();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message, c.message);
  }
}

TEST(ResolveConfig, InClusterConfigIsUsedWhenNothingIsConfiguredAndAServiceAccountIsMounted) {
  Fixture f;
  f.in.flags.kubeconfig.clear();
  f.in.env = {
      {"HOME", "/home/none"}, {"KUBERNETES_SERVICE_HOST", "fd00::1"}, {"KUBERNETES_SERVICE_PORT", "443"}};
  f.fs.add("/sa/token", "sa-token");
  f.fs.add("/sa/ca.crt", "CA");
  f.fs.add("/sa/namespace", "training\n");
  auto c = f.resolve();
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->in_cluster);
  EXPECT_EQ(c->server, "https://[fd00::1]:443");
  EXPECT_EQ(c->token_file, "/sa/token");
  EXPECT_EQ(c->auth, AuthKind::token_file);
  EXPECT_EQ(c->ca_file, "/sa/ca.crt");
  EXPECT_EQ(c->namespace_, "training");
  f.in.env["POD_NAMESPACE"] = "from-env";
  EXPECT_EQ(f.resolve()->namespace_, "from-env");
  f.in.flags.namespace_ = "flag";
  EXPECT_EQ(f.resolve()->namespace_, "flag");
}

TEST(ResolveConfig, NothingConfiguredAndNoServiceAccountIsAnError) {
  Fixture f;
  f.in.flags.kubeconfig.clear();
  f.in.env = {{"HOME", "/home/none"}};
  auto c = f.resolve();
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message,
            "invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER "
            "environment variable");
}

TEST(ResolveConfig, RequestTimeoutAcceptsSecondsAndUnits) {
  struct Case {
    const char* text;
    long long ms;
  } cases[] = {{"0", 0}, {"30", 30000}, {"1s", 1000}, {"2m", 120000}, {"1h30m", 5400000}, {"500ms", 500}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    auto d = parse_duration(c.text);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->count(), c.ms);
  }
}

TEST(ResolveConfig, RequestTimeoutRefusesWhatIsNotADurationWithoutThrowing) {
  for (const char* text : {"99999999999999999999", "-1s", "1m30", "abc"}) {
    SCOPED_TRACE(text);
    auto d = parse_duration(text);
    ASSERT_FALSE(d);
    EXPECT_EQ(
        d.error().message,
        "invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a "
        "corresponding time unit (e.g. 1s | 2m | 3h)");
  }
}

}  // namespace
}  // namespace kpt::kube
