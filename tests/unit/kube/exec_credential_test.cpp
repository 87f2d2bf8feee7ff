#include "kube/exec_credential.hpp"

#include "util/time.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::kube {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

/// Answers with scripted outputs and records what it was asked to run.
class ScriptedRunner final : public CommandRunner {
 public:
  Expected<CommandResult> run(const std::string& command, const std::vector<std::string>& args,
                              const std::map<std::string, std::string>& env, bool with_stdin) override {
    calls.push_back({command, args, env, with_stdin});
    if (missing) return make_error(ErrorCode::not_found, "executable " + command + " not found");
    const auto& out = outputs.at(std::min(calls.size() - 1, outputs.size() - 1));
    return CommandResult{exit_code, out};
  }
  struct Call {
    std::string command;
    std::vector<std::string> args;
    std::map<std::string, std::string> env;
    bool with_stdin;
  };
  std::vector<Call> calls;
  std::vector<std::string> outputs;
  int exit_code = 0;
  bool missing = false;
};

std::string credential(const std::string& token, const std::string& expiry = {},
                       const std::string& version = "client.authentication.k8s.io/v1") {
  json status = {{"token", token}};
  if (!expiry.empty()) status["expirationTimestamp"] = expiry;
  return json{{"apiVersion", version}, {"kind", "ExecCredential"}, {"status", status}}.dump();
}

ExecConfig v1_config() {
  ExecConfig c;
  c.command = "cred-helper";
  c.args = {"token", "--cluster=x"};
  c.env = {{"HELPER_MODE", "ci"}};
  c.api_version = "client.authentication.k8s.io/v1";
  c.interactive_mode = "Never";
  c.provide_cluster_info = true;
  return c;
}

TEST(ExecCredential, PassesArgsEnvAndClusterInfoAndCachesUntilExpiry) {
  ScriptedRunner runner;
  runner.outputs = {credential("t1", "2030-01-01T00:10:00Z"), credential("t2", "2030-01-01T01:00:00Z")};
  std::chrono::system_clock::time_point now = *util::parse_time("2030-01-01T00:00:00Z");
  ExecClusterInfo cluster{"https://k:6443", "k.internal", false, "PEM", "", false, R"({"audience":"a"})"};
  ExecCredentialProvider p(v1_config(), cluster, runner, {{"PATH", "/bin"}}, true, [&] { return now; });
  ASSERT_EQ(p.get()->token, "t1");
  ASSERT_EQ(runner.calls.size(), 1u);
  const auto& call = runner.calls[0];
  EXPECT_EQ(call.command, "cred-helper");
  EXPECT_EQ(call.args, (std::vector<std::string>{"token", "--cluster=x"}));
  EXPECT_EQ(call.env.at("HELPER_MODE"), "ci");
  EXPECT_EQ(call.env.at("PATH"), "/bin");
  EXPECT_FALSE(call.with_stdin);  // interactiveMode Never
  const auto info = json::parse(call.env.at("KUBERNETES_EXEC_INFO"));
  EXPECT_EQ(info, json::parse(R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",
    "spec":{"interactive":false,"cluster":{"server":"https://k:6443","tls-server-name":"k.internal",
    "certificate-authority-data":"UEVN","config":{"audience":"a"}}}})"));

  now += 5min;
  EXPECT_EQ(p.get()->token, "t1");
  EXPECT_EQ(runner.calls.size(), 1u);
  now += 6min;  // past the expiry
  EXPECT_EQ(p.get()->token, "t2");
  EXPECT_EQ(runner.calls.size(), 2u);
}

TEST(ExecCredential, A401DropsTheCredentialOncePerGeneration) {
  ScriptedRunner runner;
  runner.outputs = {credential("t1"), credential("t2")};
  ExecCredentialProvider p(v1_config(), {}, runner, {}, false);
  ASSERT_TRUE(p.get());
  const auto gen = p.generation();
  EXPECT_TRUE(p.unauthorized(gen));
  EXPECT_FALSE(p.unauthorized(gen));
  EXPECT_EQ(p.get()->token, "t2");
  EXPECT_FALSE(p.unauthorized(gen));  // stale generation: the new credential stays
  EXPECT_EQ(runner.calls.size(), 2u);
}

TEST(ExecCredential, InteractiveModeDecidesWhetherStdinIsPassed) {
  struct Case {
    const char* mode;
    const char* api_version;
    bool terminal;
    bool expect_stdin;
    const char* error;
  } cases[] = {
      {"IfAvailable", "client.authentication.k8s.io/v1", true, true, nullptr},
      {"IfAvailable", "client.authentication.k8s.io/v1", false, false, nullptr},
      {"", "client.authentication.k8s.io/v1beta1", true, true, nullptr},
      {"Always", "client.authentication.k8s.io/v1", true, true, nullptr},
      {"Always", "client.authentication.k8s.io/v1", false, false,
       "exec plugin cannot support interactive mode: standard input is not a terminal"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.mode) + (c.terminal ? " terminal" : " pipe"));
    ScriptedRunner runner;
    runner.outputs = {credential("t", "", c.api_version)};
    ExecConfig cfg = v1_config();
    cfg.interactive_mode = c.mode;
    cfg.api_version = c.api_version;
    ExecCredentialProvider p(cfg, {}, runner, {}, c.terminal);
    auto r = p.get();
    if (c.error != nullptr) {
      ASSERT_FALSE(r);
      EXPECT_EQ(r.error().message, c.error);
      continue;
    }
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(runner.calls.at(0).with_stdin, c.expect_stdin);
    EXPECT_EQ(json::parse(runner.calls[0].env.at("KUBERNETES_EXEC_INFO"))["spec"]["interactive"],
              c.expect_stdin);
  }
}

TEST(ExecCredential, FailuresAreReportedAsClientGoWordsThem) {
  struct Case {
    const char* name;
    std::string out;
    int exit_code;
    bool missing;
    std::string message;
  } cases[] = {
      {"missing command with hint", "", 0, true,
       "exec: executable cred-helper not found\n\nInstall cred-helper from example.com"},
      {"non-zero exit", "", 3, false, "exec: executable cred-helper failed with exit code 3"},
      {"not json", "hello", 0, false, "decoding stdout: the exec plugin did not print JSON"},
      {"wrong version", credential("t", "", "client.authentication.k8s.io/v1beta1"), 0, false,
       "exec plugin is configured to use API version client.authentication.k8s.io/v1, plugin returned "
       "version "
       "client.authentication.k8s.io/v1beta1"},
      {"no status", R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"})", 0, false,
       "exec plugin didn't return a status field"},
      {"empty status",
       R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{}})", 0, false,
       "exec plugin didn't return a token or cert/key pair"},
      {"a token that is not a string (found by fuzzing the client's JSON decoding)",
       R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":5}})", 0,
       false, "exec plugin didn't return a token or cert/key pair"},
      {"cert without key",
       R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"clientCertificateData":"C"}})",
       0, false, "exec plugin returned only certificate or key, not both"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ScriptedRunner runner;
    runner.outputs = {c.out};
    runner.exit_code = c.exit_code;
    runner.missing = c.missing;
    ExecConfig cfg = v1_config();
    cfg.install_hint = "Install \x1b[1mcred-helper\x1b[0m from example.com";
    ExecCredentialProvider p(cfg, {}, runner, {}, false);
    auto r = p.get();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message, c.message);
  }
}

TEST(ExecCredential, ALongTerminalEscapeInTheInstallHintIsDroppedWithoutRecursion) {
  ScriptedRunner runner;
  runner.missing = true;
  ExecConfig cfg = v1_config();
  cfg.install_hint = "get \x1b[" + std::string(300'000, '1') + "mhelper\x1b[ and \x1b[0";
  ExecCredentialProvider p(cfg, {}, runner, {}, false);
  auto r = p.get();
  ASSERT_FALSE(r);
  const std::string tail = "get helper\x1b[ and \x1b[0";
  ASSERT_GE(r.error().message.size(), tail.size());
  EXPECT_EQ(r.error().message.substr(r.error().message.size() - tail.size()), tail);
}

TEST(ExecCredential, RealRunnerRunsAProgramWithTheGivenEnvironment) {
  RealCommandRunner runner;
  auto r = runner.run("sh", {"-c", "printf '%s' \"$GREETING\""},
                      {{"PATH", "/usr/bin:/bin"}, {"GREETING", "hi"}}, false);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(r->out, "hi");
  auto missing = runner.run("no-such-kpt-helper", {}, {{"PATH", "/usr/bin:/bin"}}, false);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::not_found);
}

}  // namespace
}  // namespace kpt::kube
