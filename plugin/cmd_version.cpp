#include <CLI/CLI.hpp>
#include <ostream>

#include "plugin/commands.hpp"
#include "plugin/context.hpp"
#include "plugin/version.hpp"

namespace kpt::plugin {

void add_version_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("version", "Print the client version");
  cmd->callback([&ctx] {
    ctx.out << "kubectl-pytorch " << k_version << "\n";
    ctx.exit_code = 0;
  });
}

}  // namespace kpt::plugin
