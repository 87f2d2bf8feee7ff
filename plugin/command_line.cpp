#include "plugin/command_line.hpp"

#include "util/strings.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>

namespace kpt::plugin {

namespace {

/// The option NAME ("-n", "--namespace") of the innermost command that has it: a subcommand's
/// options shadow the root's, and the root's still apply after the command (fallthrough).
const CLI::Option* find_option(const std::vector<const CLI::App*>& path, const std::string& name) {
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    if (const CLI::Option* opt = (*it)->get_option_no_throw(name)) return opt;
  }
  return nullptr;
}

bool is_flag(const CLI::Option& opt) { return opt.get_expected_max() == 0; }

const CLI::App* find_subcommand(const CLI::App& app, const std::string& word) {
  const auto subs = app.get_subcommands([&word](const CLI::App* sub) { return sub->check_name(word); });
  return subs.empty() ? nullptr : subs.front();
}

/// A command that only groups others (the root, `local`): a word after it must name one.
bool expects_command(const CLI::App& app) {
  return app.get_require_subcommand_min() > 0 && !app.get_subcommands({}).empty();
}

/// `-X=value` as CLI11 reads what pflag means: `-X value`, or `--long=value` for a flag, since a
/// flag takes no separate word. Nothing when X is no option here (CLI11 then says so).
std::optional<std::vector<std::string>> split_short_assignment(const std::vector<const CLI::App*>& path,
                                                               const std::string& arg) {
  if (arg.size() < 3 || arg[0] != '-' || arg[1] == '-' || arg[2] != '=') return std::nullopt;
  const CLI::Option* opt = find_option(path, arg.substr(0, 2));
  if (opt == nullptr) return std::nullopt;
  const std::string value = arg.substr(3);
  if (!is_flag(*opt)) return std::vector<std::string>{arg.substr(0, 2), value};
  if (opt->get_lnames().empty()) return std::nullopt;
  return std::vector<std::string>{"--" + opt->get_lnames().front() + "=" + value};
}

/// Whether the option word `arg` (no '=') takes the next word as its value.
bool takes_next_word(const std::vector<const CLI::App*>& path, const std::string& arg) {
  if (arg.find('=') != std::string::npos) return false;
  if (arg[1] != '-' && arg.size() > 2) return false;  // -nother: the value is attached
  const CLI::Option* opt = find_option(path, arg);
  return opt != nullptr && !is_flag(*opt);
}

}  // namespace

CommandLine read_command_line(const CLI::App& root, const std::vector<std::string>& args) {
  CommandLine line;
  std::vector<const CLI::App*> path = {&root};
  std::vector<std::string> names;
  bool command_done = false;  // once a command takes a positional, words are its arguments
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      line.args.insert(line.args.end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      break;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      if (auto split = split_short_assignment(path, arg)) {
        line.args.insert(line.args.end(), split->begin(), split->end());
      } else {
        line.args.push_back(arg);
        if (takes_next_word(path, arg) && i + 1 < args.size()) line.args.push_back(args[++i]);
      }
      continue;
    }
    if (!command_done) {
      if (path.size() == 1 && arg == "help") {
        std::vector<std::string> topic;
        for (std::size_t j = i + 1; j < args.size(); ++j) {
          if (!args[j].empty() && args[j][0] != '-') topic.push_back(args[j]);
        }
        line.help_for = topic;
        return line;
      }
      if (const CLI::App* sub = find_subcommand(*path.back(), arg)) {
        path.push_back(sub);
        names.push_back(arg);
        line.args.push_back(arg);
        continue;
      }
      if (expects_command(*path.back()) && line.unknown_command.empty()) {
        line.unknown_command = arg;
        line.command_of = names;
      }
      command_done = true;
    }
    line.args.push_back(arg);
  }
  return line;
}

std::string unknown_command_message(const CLI::App& root, const CommandLine& line,
                                    const std::string& program) {
  const CLI::App* app = &root;
  std::string command = program;
  for (const auto& name : line.command_of) {
    app = find_subcommand(*app, name);
    command += " " + name;
  }
  std::vector<std::string> candidates;
  for (const CLI::App* sub : app->get_subcommands({})) {
    if (!sub->get_group().empty()) candidates.push_back(sub->get_name());  // hidden ones have no group
  }
  if (app == &root) candidates.push_back("help");
  std::string out = "unknown command \"" + line.unknown_command + "\" for \"" + command + "\"";
  // cobra's suggestions: a Levenshtein distance of at most 2, or the word as a prefix.
  std::optional<std::string> close;
  std::size_t best = 3;
  for (const auto& c : candidates) {
    const std::size_t d = util::edit_distance(line.unknown_command, c, 2);
    if (d < best || (!close && util::starts_with(c, line.unknown_command))) {
      close = c;
      best = std::min(best, d);
    }
  }
  if (close) out += "\n\nDid you mean this?\n\t" + *close;
  return out;
}

std::string command_path(const CommandLine& line, const std::string& program) {
  std::string out = program;
  for (const auto& name : line.command_of) out += " " + name;
  return out;
}

}  // namespace kpt::plugin
