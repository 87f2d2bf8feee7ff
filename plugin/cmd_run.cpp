#include <CLI/CLI.hpp>
#include <ostream>

#include "plugin/commands.hpp"
#include "plugin/context.hpp"

namespace kpt::plugin {

void add_run_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("run", "(being built)");
  cmd->group("");  // hidden until it works
  cmd->callback([&ctx] {
    ctx.err << "error: 'run' is being built\n";
    ctx.exit_code = 2;
  });
}

}  // namespace kpt::plugin
