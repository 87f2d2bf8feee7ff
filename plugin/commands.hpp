#pragma once

#include <string>

namespace CLI {
class App;
}

namespace kpt::plugin {

struct Context;

// One function per command file: registers the sub-command, whose callback sets
// ctx.exit_code. Keep this list in step with plugin/CMakeLists.txt.
void add_validate_command(CLI::App& app, Context& ctx);
void add_env_command(CLI::App& app, Context& ctx);
void add_doctor_command(CLI::App& app, Context& ctx);
void add_convert_command(CLI::App& app, Context& ctx);
void add_local_command(CLI::App& app, Context& ctx);
void add_controller_command(CLI::App& app, Context& ctx);
void add_run_command(CLI::App& app, Context& ctx);
void add_logs_command(CLI::App& app, Context& ctx);
void add_diagnose_command(CLI::App& app, Context& ctx);
void add_status_command(CLI::App& app, Context& ctx);
void add_completion_command(CLI::App& app, Context& ctx);
void add_version_command(CLI::App& app, Context& ctx);
void add_config_command(CLI::App& app, Context& ctx);  // hidden: config-resolve

// The doctor report (`doctor`, and `version --cluster` after the client version); returns the exit code.
/// `check`: exit 1 when the report lists a problem (doctor --check).
int run_doctor(const std::string& output, Context& ctx, bool check = false);

}  // namespace kpt::plugin
