#include "plugin/plugin.hpp"

#include <iostream>
#include <map>
#include <string>
#include <vector>

extern char** environ;

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  std::map<std::string, std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry(*e);
    const auto eq = entry.find('=');
    if (eq != std::string::npos) env.emplace(entry.substr(0, eq), entry.substr(eq + 1));
  }
  return kpt::plugin::run(args, env, std::cin, std::cout, std::cerr);
}
