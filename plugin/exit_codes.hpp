#pragma once

// The exit codes the plugin documents: the constants the commands return and the table the root
// `--help` prints (README's "Exit codes" section says the same).

#include <array>
#include <string>
#include <string_view>

namespace kpt::plugin {

namespace exit_code {
inline constexpr int ok = 0;
inline constexpr int findings = 1;  ///< validate: findings of error severity; other commands: failure
inline constexpr int failed = findings;
inline constexpr int usage = 2;      ///< usage or I/O error
inline constexpr int timeout = 124;  ///< run --timeout reached
inline constexpr int interrupted = 130;
}  // namespace exit_code

struct ExitCodeRow {
  std::string_view code;  ///< "0", or "N" for run's rank 0 exit code
  std::string_view meaning;
};

inline constexpr std::array<ExitCodeRow, 6> k_exit_code_table{{
    {"0", "success (validate: no findings of error severity; run: the job succeeded)"},
    {"1", "validate: findings of error severity; other commands: the operation failed"},
    {"2", "usage or I/O error (bad flags, unreadable file, no usable kubeconfig)"},
    {"N", "run: the job failed; N is rank 0's exit code (1 when it has none)"},
    {"124", "run: --timeout reached"},
    {"130", "run: interrupted (the job keeps running unless --rm)"},
}};

/// "Exit codes:" and one line per row of k_exit_code_table, as the root `--help` ends.
std::string exit_codes_help();

/// The one wording of the pointer to a command's help: "Run 'kubectl pytorch run --help' for usage.".
std::string help_hint(std::string_view command_path);

}  // namespace kpt::plugin
