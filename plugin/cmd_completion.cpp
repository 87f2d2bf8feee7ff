#include "plugin/commands.hpp"
#include "plugin/completion.hpp"
#include "plugin/context.hpp"
#include "plugin/failure.hpp"

#include <CLI/CLI.hpp>

#include <ostream>

namespace kpt::plugin {

namespace {

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
    "Then 'kubectl pytorch <TAB>' completes commands, flags, their values and job names.\n"
    "For the kubectl-pytorch binary itself: source <(kubectl-pytorch completion bash|zsh), or\n"
    "kubectl-pytorch completion fish | source.\n";

// Each script asks `kubectl-pytorch __complete WORDS... CURRENT` and reads its answer: one
// candidate a line (value, tab, description), then ":<directive>" (4: no file names, 2: no space).
constexpr const char* k_bash =
    "# bash completion for kubectl-pytorch: source <(kubectl-pytorch completion bash)\n"
    "_kubectl_pytorch() {\n"
    "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" out line directive\n"
    "  out=$(\"${COMP_WORDS[0]}\" __complete \"${COMP_WORDS[@]:1:COMP_CWORD-1}\" \"$cur\" 2>/dev/null) || "
    "return 0\n"
    "  directive=${out##*:}\n"
    "  COMPREPLY=()\n"
    "  while IFS= read -r line; do\n"
    "    [[ -z $line || $line == :* ]] && continue\n"
    "    COMPREPLY+=(\"${line%%$'\\t'*}\")\n"
    "  done <<<\"$out\"\n"
    "  if (( directive & 2 )); then compopt -o nospace 2>/dev/null; fi\n"
    "  if (( ${#COMPREPLY[@]} == 0 && (directive & 4) == 0 )); then\n"
    "    mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
    "  fi\n"
    "}\n"
    "complete -F _kubectl_pytorch kubectl-pytorch\n";

constexpr const char* k_zsh =
    "#compdef kubectl-pytorch\n"
    "# zsh completion for kubectl-pytorch: source <(kubectl-pytorch completion zsh)\n"
    "_kubectl_pytorch() {\n"
    "  local out directive line\n"
    "  local -a lines values\n"
    "  out=$(\"${words[1]}\" __complete \"${(@)words[2,CURRENT]}\" 2>/dev/null) || return 1\n"
    "  lines=(\"${(@f)out}\")\n"
    "  directive=${lines[-1]#:}\n"
    "  for line in \"${(@)lines[1,-2]}\"; do values+=(\"${line%%$'\\t'*}\"); done\n"
    "  if (( ${#values} )); then\n"
    "    if (( directive & 2 )); then compadd -S '' -a values; else compadd -a values; fi\n"
    "  elif (( (directive & 4) == 0 )); then\n"
    "    _files\n"
    "  fi\n"
    "}\n"
    "compdef _kubectl_pytorch kubectl-pytorch\n";

constexpr const char* k_fish =
    "# fish completion for kubectl-pytorch: kubectl-pytorch completion fish | source\n"
    "function __kubectl_pytorch_complete\n"
    "    set -l words (commandline -opc) (commandline -ct)\n"
    "    set -l out (command $words[1] __complete $words[2..-1] 2>/dev/null)\n"
    "    test (count $out) -gt 0; or return\n"
    "    set -l directive (string replace -r '^:' '' -- $out[-1])\n"
    "    set -e out[-1]\n"
    "    if test (count $out) -gt 0\n"
    "        printf '%s\\n' $out\n"
    "    else if test (math \"floor($directive / 4) % 2\") -eq 0\n"
    "        __fish_complete_path (commandline -ct)\n"
    "    end\n"
    "end\n"
    "complete -c kubectl-pytorch -f -a '(__kubectl_pytorch_complete)'\n";

int print_script(const Context& ctx, const std::vector<std::string>& args) {
  if (args.empty()) {
    ctx.out << k_instructions;
    return 0;
  }
  if (args.size() == 1 && args.front() == "bash")
    ctx.out << k_bash;
  else if (args.size() == 1 && args.front() == "zsh")
    ctx.out << k_zsh;
  else if (args.size() == 1 && args.front() == "fish")
    ctx.out << k_fish;
  else
    return fail_usage(ctx, "completion takes one of bash, zsh or fish (or nothing, for how to set it up)");
  return 0;
}

}  // namespace

void add_completion_command(CLI::App& app, Context& ctx) {
  auto shells = std::make_shared<std::vector<std::string>>();
  auto* cmd = app.add_subcommand("completion",
                                 "Shell completion: a script for bash, zsh or fish, or how kubectl "
                                 "completes the plugin");
  cmd->add_option("shell", *shells, "bash, zsh or fish");
  cmd->footer(
      "Examples:\n"
      "  kubectl pytorch completion                  # how to make 'kubectl pytorch <TAB>' work\n"
      "  source <(kubectl-pytorch completion bash)   # completion for the kubectl-pytorch binary\n"
      "Exit codes: 0 printed, 2 unknown shell.");
  cmd->callback([&ctx, shells] { ctx.exit_code = print_script(ctx, *shells); });

  // The protocol itself is answered before the command line is parsed (plugin.cpp): its words
  // are a partial command line, not arguments. Listed here for --help-all only.
  auto* hidden =
      app.add_subcommand("__complete", "Shell completion protocol (used by kubectl_complete-pytorch)");
  hidden->group("");
}

}  // namespace kpt::plugin
