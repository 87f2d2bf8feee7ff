#include "plugin/command_line.hpp"

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kpt::plugin {
namespace {

using Args = std::vector<std::string>;

/// A tree shaped as the plugin's: root options, a command with flags and a positional, a
/// command group that needs a subcommand.
struct Tree {
  CLI::App root{"test", "kubectl pytorch"};
  std::string ns, output, job;
  int verbosity = 0;
  bool all = false;
  std::vector<std::string> command;
  Tree() {
    root.require_subcommand(1);
    root.add_option("-n,--namespace", ns);
    root.add_option("-v,--v", verbosity);
    auto* status = root.add_subcommand("status", "");
    status->add_flag("-A,--all-namespaces", all);
    status->add_option("-o,--output", output);
    status->add_option("job", job);
    auto* run = root.add_subcommand("run", "");
    run->add_option("args", command);
    auto* local = root.add_subcommand("local", "");
    local->require_subcommand(1);
    local->add_subcommand("up", "");
    local->add_subcommand("down", "");
    root.add_subcommand("config-resolve", "")->group("");  // hidden: never suggested
  }
};

TEST(ReadCommandLine, RewritesShortAssignmentsAsPflagReadsThem) {
  Tree t;
  struct Case {
    const char* name;
    Args in;
    Args out;
  };
  const std::vector<Case> cases = {
      {"value option", {"-n=other", "status"}, {"-n", "other", "status"}},
      {"value option after the command", {"status", "-o=json", "-v=6"}, {"status", "-o", "json", "-v", "6"}},
      {"flag through its long name", {"status", "-A=false"}, {"status", "--all-namespaces=false"}},
      {"an empty value stays a value", {"-n=", "status"}, {"-n", "", "status"}},
      {"long forms and attached values are CLI11's own",
       {"--namespace=x", "-nx", "status"},
       {"--namespace=x", "-nx", "status"}},
      {"an unknown short option is left for CLI11 to refuse", {"status", "-z=1"}, {"status", "-z=1"}},
      {"nothing after --", {"run", "--", "python", "-n=1"}, {"run", "--", "python", "-n=1"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const CommandLine line = read_command_line(t.root, c.in);
    EXPECT_EQ(line.args, c.out);
    EXPECT_EQ(line.unknown_command, "");
    EXPECT_FALSE(line.help_for);
  }
}

TEST(ReadCommandLine, AValueThatNamesACommandIsAValue) {
  Tree t;
  const CommandLine line = read_command_line(t.root, {"-n", "local", "status", "local"});
  EXPECT_EQ(line.args, (Args{"-n", "local", "status", "local"}));
  EXPECT_EQ(line.unknown_command, "");
}

TEST(ReadCommandLine, AWordWhereACommandMustBeIsUnknown) {
  Tree t;
  CommandLine line = read_command_line(t.root, {"-v", "6", "stauts", "x"});
  EXPECT_EQ(line.unknown_command, "stauts");
  EXPECT_TRUE(line.command_of.empty());
  EXPECT_EQ(unknown_command_message(t.root, line, "kubectl pytorch"),
            "unknown command \"stauts\" for \"kubectl pytorch\"\n\nDid you mean this?\n\tstatus");

  line = read_command_line(t.root, {"local", "dwon"});
  EXPECT_EQ(line.unknown_command, "dwon");
  EXPECT_EQ(line.command_of, (Args{"local"}));
  EXPECT_EQ(command_path(line, "kubectl pytorch"), "kubectl pytorch local");
  EXPECT_EQ(unknown_command_message(t.root, line, "kubectl pytorch"),
            "unknown command \"dwon\" for \"kubectl pytorch local\"\n\nDid you mean this?\n\tdown");

  // Nothing close (and hidden commands are never suggested): no suggestion.
  line = read_command_line(t.root, {"config-resolv"});
  EXPECT_EQ(unknown_command_message(t.root, line, "kubectl pytorch"),
            "unknown command \"config-resolv\" for \"kubectl pytorch\"");
  // A prefix is suggested as cobra does.
  line = read_command_line(t.root, {"sta"});
  EXPECT_EQ(unknown_command_message(t.root, line, "p"),
            "unknown command \"sta\" for \"p\"\n\nDid you mean this?\n\tstatus");
}

TEST(ReadCommandLine, APositionalOfACommandIsNoCommand) {
  Tree t;
  const CommandLine line = read_command_line(t.root, {"status", "stauts"});
  EXPECT_EQ(line.unknown_command, "");
  EXPECT_EQ(line.args, (Args{"status", "stauts"}));
}

TEST(ReadCommandLine, HelpIsACommandTakingACommandPath) {
  Tree t;
  auto line = read_command_line(t.root, {"help"});
  ASSERT_TRUE(line.help_for);
  EXPECT_TRUE(line.help_for->empty());
  line = read_command_line(t.root, {"help", "local", "up", "--v=2"});
  ASSERT_TRUE(line.help_for);
  EXPECT_EQ(*line.help_for, (Args{"local", "up"}));
  // A job named help is still a job.
  line = read_command_line(t.root, {"status", "help"});
  EXPECT_FALSE(line.help_for);
}

}  // namespace
}  // namespace kpt::plugin
