#pragma once

#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace kpt::plugin {

/// What the command line asks for before CLI11 parses it: the arguments rewritten as pflag reads
/// them, or a help request (`help [command...]`), or a command word the tree does not have.
struct CommandLine {
  std::vector<std::string> args;  ///< in order, ready for CLI11
  /// `help [command...]`: the path of the command whose help to print (empty: the root's).
  std::optional<std::vector<std::string>> help_for;
  std::string unknown_command;          ///< a word where a command was expected
  std::vector<std::string> command_of;  ///< the command path the unknown word followed
};

/// Reads `args` (argv without argv[0]) against the command tree, as kubectl's pflag and cobra do:
/// `-n=other` is `-n other` (CLI11 would take "=other" as the value) and `-A=false` sets the flag
/// through its long name; a word where a command is expected that is none is reported (CLI11 would
/// only say that a command is required); `help` is a command. Nothing after `--` is touched.
CommandLine read_command_line(const CLI::App& root, const std::vector<std::string>& args);

/// cobra's message for an unknown command, with its suggestion when one is close:
/// unknown command "stauts" for "kubectl pytorch" / Did you mean this? / status.
std::string unknown_command_message(const CLI::App& root, const CommandLine& line,
                                    const std::string& program);

/// The command the unknown word followed, as typed: "kubectl pytorch local".
std::string command_path(const CommandLine& line, const std::string& program);

}  // namespace kpt::plugin
