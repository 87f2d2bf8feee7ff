#include "plugin/commands.hpp"
#include "plugin/context.hpp"

#include <CLI/CLI.hpp>

#include <ostream>

namespace kpt::plugin {

namespace {

// cobra's ShellCompDirective bits, which kubectl's plugin completion understands.
constexpr int k_directive_default = 0;
constexpr int k_directive_no_file = 4;

constexpr const char* k_instructions =
    "kubectl (>= 1.26) completes plugin arguments by running 'kubectl_complete-pytorch' from PATH.\n"
    "Install the shim next to kubectl-pytorch (krew installs only one binary, see krew#812):\n"
    "\n"
    "  cat > ~/.local/bin/kubectl_complete-pytorch <<'SH'\n"
    "  #!/bin/sh\n"
    "  exec kubectl-pytorch __complete \"$@\"\n"
    "  SH\n"
    "  chmod +x ~/.local/bin/kubectl_complete-pytorch\n"
    "\n"
    "Then 'kubectl pytorch <TAB>' completes commands and flags, and files where a command takes them.\n";

std::string flag_name(const CLI::Option* opt) {
  for (const auto& n : opt->get_lnames()) return "--" + n;
  for (const auto& n : opt->get_snames()) return "-" + n;
  return {};
}

/// cobra's __complete protocol: candidates one per line ("value\tdescription"), then ":directive".
void complete(const CLI::App& root, const std::vector<std::string>& words, std::ostream& out) {
  const std::string partial = words.empty() ? std::string{} : words.back();
  const CLI::App* current = &root;
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    for (const auto* sub : root.get_subcommands([](const CLI::App*) { return true; })) {
      if (sub->get_name() == words[i]) current = sub;
    }
  }
  int directive = k_directive_default;
  if (partial.rfind('-', 0) == 0) {
    for (const CLI::App* app : {current, &root}) {
      for (const auto* opt : app->get_options()) {
        const std::string name = flag_name(opt);
        if (!name.empty() && name.rfind(partial, 0) == 0)
          out << name << '\t' << opt->get_description() << '\n';
      }
      if (app == &root) break;
    }
    directive = k_directive_no_file;
  } else if (current == &root) {
    for (const auto* sub : root.get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); })) {
      if (sub->get_name().rfind(partial, 0) == 0)
        out << sub->get_name() << '\t' << sub->get_description() << '\n';
    }
    directive = k_directive_no_file;
  }
  out << ':' << directive << '\n';
}

}  // namespace

void add_completion_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("completion", "How to enable shell completion through kubectl");
  cmd->callback([&ctx] {
    ctx.out << k_instructions;
    ctx.exit_code = 0;
  });

  auto* hidden =
      app.add_subcommand("__complete", "Shell completion protocol (used by kubectl_complete-pytorch)");
  hidden->group("");
  hidden->allow_extras();
  hidden->prefix_command();
  hidden->callback([&ctx, &app, hidden] {
    complete(app, hidden->remaining(), ctx.out);
    ctx.exit_code = 0;
  });
}

}  // namespace kpt::plugin
