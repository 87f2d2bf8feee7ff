#pragma once

#include "kube/connection_flags.hpp"

#include <iosfwd>
#include <map>
#include <optional>
#include <string>

namespace kpt::plugin {

/// What every command gets: streams, environment and the common kubectl flags.
struct Context {
  std::istream& in;
  std::ostream& out;
  std::ostream& err;
  std::map<std::string, std::string> env;
  bool out_is_tty = false;
  bool err_is_tty = false;
  std::string program;    ///< "kubectl pytorch" when run as a kubectl plugin
  std::string self_path;  ///< argv[0], to re-exec ourselves (local up)
  kube::ConnectionFlags connection;
  int verbosity = 0;
  int exit_code = 0;
  std::string colour_mode = "auto";  ///< --color: auto, always or never (as stern's)

  /// Colour on `err`/`out`: with --color auto (the default) only on a terminal, with TERM not
  /// "dumb" and NO_COLOR unset or empty; --color always or never decides alone.
  [[nodiscard]] bool colour_out() const;
  [[nodiscard]] bool colour_err() const;
  [[nodiscard]] std::optional<std::string> getenv(const std::string& name) const;
};

}  // namespace kpt::plugin
