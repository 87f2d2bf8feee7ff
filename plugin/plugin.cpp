#include "plugin/plugin.hpp"

#include "plugin/command_line.hpp"
#include "plugin/commands.hpp"
#include "plugin/completion.hpp"
#include "plugin/context.hpp"
#include "plugin/failure.hpp"
#include "util/messages.hpp"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <exception>
#include <iostream>

namespace kpt::plugin {

namespace {

void add_connection_flags(CLI::App& app, kube::ConnectionFlags& f, int& verbosity) {
  const char* group = "Connection (as kubectl)";
  app.add_option("--kubeconfig", f.kubeconfig, "Path to the kubeconfig file")->group(group);
  app.add_option("--context", f.context, "The kubeconfig context to use")->group(group);
  app.add_option("--cluster", f.cluster, "The kubeconfig cluster to use")->group(group);
  app.add_option("--user", f.user, "The kubeconfig user to use")->group(group);
  app.add_option("-n,--namespace", f.namespace_, "The namespace for this request")->group(group);
  app.add_option("-s,--server", f.server, "The address and port of the Kubernetes API server")->group(group);
  app.add_option("--token", f.token, "Bearer token for authentication")->group(group);
  app.add_option("--certificate-authority", f.certificate_authority, "Path to a CA certificate file")
      ->group(group);
  app.add_option("--client-certificate", f.client_certificate, "Path to a client certificate file")
      ->group(group);
  app.add_option("--client-key", f.client_key, "Path to a client key file")->group(group);
  app.add_option("--tls-server-name", f.tls_server_name, "Server name for certificate validation")
      ->group(group);
  app.add_flag("--insecure-skip-tls-verify", f.insecure_skip_tls_verify,
               "Do not verify the server's certificate (insecure)")
      ->group(group);
  app.add_option("--request-timeout", f.request_timeout, "Per-request timeout, e.g. 1s, 2m (0: none)")
      ->group(group);
  app.add_option("--as", f.as, "Username to impersonate")->group(group);
  app.add_option("--as-group", f.as_groups, "Group to impersonate (repeatable)")->group(group);
  app.add_option("--as-uid", f.as_uid, "UID to impersonate")->group(group);
  app.add_option("--username", f.username, "Username for basic authentication")->group(group);
  app.add_option("--password", f.password, "Password for basic authentication")->group(group);
  app.add_option("--cache-dir", f.cache_dir, "Cache directory (default ~/.kube/cache)")->group(group);
  app.add_flag("--disable-compression", f.disable_compression, "Do not ask for gzip responses")->group(group);
  app.add_option("-v,--v", verbosity, "Log level: 6 requests, 7 headers, 8 bodies (secrets always redacted)")
      ->group(group);
}

std::string program_name(const std::vector<std::string>& argv) {
  if (argv.empty()) return "kubectl-pytorch";
  const auto& a0 = argv.front();
  const auto slash = a0.find_last_of('/');
  const std::string base = slash == std::string::npos ? a0 : a0.substr(slash + 1);
  // krew best practice: when installed as kubectl-<name>, show usage as `kubectl <name>`.
  if (base.rfind("kubectl-", 0) == 0) return "kubectl " + base.substr(8);
  return base;
}

}  // namespace

int run(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env, std::istream& in,
        std::ostream& out, std::ostream& err) {
  Context ctx{in, out, err, env, false, false, {}, {}, {}, 0, 0, "auto"};
  ctx.out_is_tty = (&out == &std::cout) && ::isatty(STDOUT_FILENO) == 1;
  ctx.err_is_tty = (&err == &std::cerr) && ::isatty(STDERR_FILENO) == 1;
  ctx.program = program_name(argv);
  ctx.self_path = argv.empty() ? "kubectl-pytorch" : argv.front();

  try {
    CLI::App app{
        "Validate, explain, run and follow Kubeflow PyTorchJobs and TrainJobs; run them locally with no "
        "cluster",
        ctx.program};
    app.require_subcommand(1);
    app.fallthrough(true);  // connection flags may follow the command, as with kubectl
    app.footer(exit_codes_help());
    app.set_help_all_flag("--help-all", "Show help for every command");
    app.add_option("--color", ctx.colour_mode,
                   "Colour output: auto (on a terminal, unless NO_COLOR is set), always, never")
        ->check(CLI::IsMember({"auto", "always", "never"}).description(""))
        ->type_name("WHEN");
    add_connection_flags(app, ctx.connection, ctx.verbosity);
    add_validate_command(app, ctx);
    add_env_command(app, ctx);
    add_doctor_command(app, ctx);
    add_run_command(app, ctx);
    add_logs_command(app, ctx);
    add_diagnose_command(app, ctx);
    add_status_command(app, ctx);
    add_local_command(app, ctx);
    add_controller_command(app, ctx);
    add_convert_command(app, ctx);
    add_completion_command(app, ctx);
    add_version_command(app, ctx);
    add_config_command(app, ctx);

    // The completion protocol's words are a partial command line, not arguments to parse.
    if (argv.size() > 1 && argv[1] == "__complete") {
      write_completion(out, complete_words(app, ctx, {argv.begin() + 2, argv.end()}));
      return exit_code::ok;
    }
    CommandLine line = read_command_line(app, {argv.begin() + (argv.empty() ? 0 : 1), argv.end()});
    if (line.help_for) {
      // `help status` is `status --help`, so a topic gets exactly the page its --help prints.
      line = read_command_line(app, *line.help_for);
      if (!line.unknown_command.empty()) {
        util::print_error(err, unknown_command_message(app, line, ctx.program + " help"));
        return exit_code::usage;
      }
      line.args.push_back("--help");
    }
    if (!line.unknown_command.empty()) {
      util::print_error(err, unknown_command_message(app, line, ctx.program));
      err << "\n" << help_hint(command_path(line, ctx.program)) << "\n";
      return exit_code::usage;
    }
    std::vector<std::string> rest = std::move(line.args);
    std::reverse(rest.begin(), rest.end());  // CLI11 takes the arguments reversed
    try {
      app.parse(rest);
    } catch (const CLI::CallForHelp& e) {
      out << app.help();
      return exit_code::ok;
    } catch (const CLI::CallForAllHelp& e) {
      out << app.help("", CLI::AppFormatMode::All);
      return exit_code::ok;
    } catch (const CLI::ParseError& e) {
      util::print_error(err, e.what());
      err << help_hint(ctx.program) << "\n";
      return exit_code::usage;
    }
    return ctx.exit_code;
  } catch (const std::exception& e) {
    // A broken invariant: documented as the operation failing, as exit_code_for(internal) says.
    util::print_error(err, e.what());
    return exit_code_for(ErrorCode::internal);
  } catch (...) {
    util::print_error(err, "unexpected failure");
    return exit_code_for(ErrorCode::internal);
  }
}

}  // namespace kpt::plugin
