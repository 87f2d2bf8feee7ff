#include <CLI/CLI.hpp>
#include <ostream>

#include "plugin/commands.hpp"
#include "plugin/context.hpp"

namespace kpt::plugin {

void add_local_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("local", "(being built)");
  cmd->group("");  // hidden until it works
  cmd->callback([&ctx] {
    ctx.err << "error: 'local' is being built\n";
    ctx.exit_code = 2;
  });
}

}  // namespace kpt::plugin
