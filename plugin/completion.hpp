#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace kpt::plugin {

struct Context;

/// One candidate of a completion: the word and what it is.
struct Candidate {
  std::string value;
  std::string description;
};

/// cobra's ShellCompDirective bits, which kubectl's plugin completion and the scripts of
/// `completion bash|zsh|fish` understand.
namespace directive {
inline constexpr int k_default = 0;  ///< the shell may complete file names when no candidate fits
inline constexpr int k_no_space = 2;
inline constexpr int k_no_file = 4;
}  // namespace directive

struct Completion {
  std::vector<Candidate> candidates;
  int directive = directive::k_default;
};

/// What completes the last of `words` (the word being typed; the others precede it):
/// subcommands, flags, a flag's values, or job names read from the cluster. Never fails: what
/// cannot be read (no kubeconfig, a cluster that does not answer in time) completes nothing.
Completion complete_words(const CLI::App& root, Context& ctx, const std::vector<std::string>& words);

/// cobra's `__complete` output: one "value<TAB>description" line per candidate, then ":<directive>".
void write_completion(std::ostream& out, const Completion& completion);

}  // namespace kpt::plugin
