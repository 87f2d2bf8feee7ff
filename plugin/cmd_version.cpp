#include "plugin/commands.hpp"
#include "plugin/context.hpp"
#include "plugin/version.hpp"

#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>
#include <string>

namespace kpt::plugin {

void add_version_command(CLI::App& app, Context& ctx) {
  struct Flags {
    bool cluster = false;
    std::string output = "table";
  };
  auto flags = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand("version", "Print the client version (--cluster: and what doctor detects)");
  cmd->add_flag("--cluster", flags->cluster,
                "Also report the cluster's Training Operator release (as doctor)");
  cmd->add_option("-o,--output", flags->output, "Output format of the cluster report")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  cmd->callback([flags, &ctx] {
    // With -o json only the report goes to stdout, so that it stays one JSON document.
    if (!flags->cluster || flags->output != "json") ctx.out << "kubectl-pytorch " << k_version << "\n";
    ctx.exit_code = flags->cluster ? run_doctor(flags->output, ctx) : 0;
  });
}

}  // namespace kpt::plugin
