// Hidden debugging command: what the kubeconfig and flags resolve to (secrets left out).
#include "kube/resolved_config.hpp"
#include "plugin/commands.hpp"
#include "plugin/context.hpp"
#include "plugin/exit_codes.hpp"
#include "plugin/failure.hpp"
#include "util/base64.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <ostream>

namespace kpt::plugin {

namespace {

nlohmann::json describe(const kube::ResolvedConfig& c, const kube::FileSystem& fs) {
  std::string ca = c.ca_data;
  if (ca.empty() && !c.ca_file.empty()) {
    if (auto text = fs.read(c.ca_file)) ca = *text;
  }
  return {{"server", c.server},
          {"namespace", c.namespace_},
          {"context", c.context},
          {"cluster", c.cluster},
          {"user", c.user},
          {"authKind", kube::auth_kind_name(c.auth)},
          {"certificateAuthorityData", ca.empty() ? std::string() : util::base64_encode(ca)},
          {"insecureSkipTlsVerify", c.insecure_skip_tls_verify},
          {"tlsServerName", c.tls_server_name},
          {"inCluster", c.in_cluster}};
}

}  // namespace

void add_config_command(CLI::App& app, Context& ctx) {
  auto* cmd =
      app.add_subcommand("config-resolve", "Show what the kubeconfig and connection flags resolve to");
  cmd->group("");  // hidden: a debugging aid, and the oracle test's probe
  cmd->footer("Exit codes: 0 printed; 2 no usable kubeconfig or a bad flag.");
  auto output = std::make_shared<std::string>("json");
  cmd->add_option("-o,--output", *output, "Output format: json")->check(CLI::IsMember({"json"}));
  cmd->callback([&ctx] {
    kube::ResolveInputs in;
    in.flags = ctx.connection;
    in.env = ctx.env;
    char buf[4096];
    if (::getcwd(buf, sizeof buf) != nullptr) in.cwd = buf;
    if (auto dir = ctx.getenv("KPT_SERVICE_ACCOUNT_DIR")) in.service_account_dir = *dir;  // for tests
    kube::RealFileSystem fs;
    auto resolved = kube::load_and_resolve(in, fs);
    if (!resolved) {
      ctx.exit_code = fail(ctx, resolved.error());
      return;
    }
    ctx.out << describe(*resolved, fs).dump(2) << "\n";
    ctx.exit_code = exit_code::ok;
  });
}

}  // namespace kpt::plugin
