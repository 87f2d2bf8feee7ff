#include <CLI/CLI.hpp>
#include <ostream>

#include "plugin/commands.hpp"
#include "plugin/context.hpp"

namespace kpt::plugin {

void add_env_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("env", "(being built)");
  cmd->callback([&ctx] {
    ctx.err << "error: 'env' is being built\n";
    ctx.exit_code = 2;
  });
}

}  // namespace kpt::plugin
