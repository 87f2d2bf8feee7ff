// Which launcher a container command uses: torchrun reads PET_*, a plain python needs MASTER_ADDR.
#include "model/pytorchjob/launch.hpp"

#include <string_view>

namespace kpt::model::pytorchjob {

namespace {

std::string_view basename(std::string_view word) {
  const auto slash = word.find_last_of('/');
  return slash == std::string_view::npos ? word : word.substr(slash + 1);
}

bool is_python(std::string_view word) {
  auto base = basename(word);
  if (base.substr(0, 6) != "python") return false;
  for (char c : base.substr(6)) {
    if (!((c >= '0' && c <= '9') || c == '.')) return false;
  }
  return true;
}

bool is_launcher_word(std::string_view word) {
  const auto base = basename(word);
  return base == "torchrun" || word == "torch.distributed.run" || word == "torch.distributed.launch";
}

/// Splits shell text into words at blanks and the separators ; & | ( ) and quotes.
std::vector<std::string> shell_words(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')' ||
        c == '"' || c == '\'') {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

std::vector<std::string> expand_words(const std::vector<std::string>& argv) {
  std::vector<std::string> words;
  for (const auto& a : argv) {
    if (a.find_first_of(" \t\n;&|") != std::string::npos) {
      for (auto& w : shell_words(a)) words.push_back(std::move(w));
    } else {
      words.push_back(a);
    }
  }
  return words;
}

bool names_rendezvous(const std::vector<std::string>& argv) {
  for (const auto& a : argv) {
    for (const char* flag : {"--rdzv", "--master-addr", "--master_addr", "--node-rank", "--node_rank", "$"}) {
      if (a.find(flag) != std::string::npos) return true;
    }
  }
  return false;
}

}  // namespace

LaunchInfo classify_launch(const std::vector<std::string>& argv) {
  const auto words = expand_words(argv);
  for (const auto& w : words) {
    if (is_launcher_word(w)) return {Launcher::torchrun, w, names_rendezvous(argv)};
  }
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (!is_python(words[i])) continue;
    // The first operand after the interpreter's options decides: a script or -m module.
    for (std::size_t j = i + 1; j < words.size(); ++j) {
      const auto& w = words[j];
      if (w == "-m" && j + 1 < words.size()) {
        return {Launcher::plain_python, words[i] + " -m " + words[j + 1], false};
      }
      if (w == "-c") return {Launcher::unknown, {}, false};
      if (!w.empty() && w.front() == '-') continue;
      if (w.size() > 3 && w.substr(w.size() - 3) == ".py")
        return {Launcher::plain_python, words[i] + " " + w, false};
      break;
    }
  }
  return {Launcher::unknown, {}, false};
}

}  // namespace kpt::model::pytorchjob
