#pragma once

#include "model/pytorchjob/release.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace kpt::model::pytorchjob {

/// Where a pod's env comes from: a real operator release, or one of our controller's styles
/// (ARCHITECTURE.md, "Env styles").
enum class StyleKind { operator_release, legacy, torchrun, worker_only };

struct EnvStyle {
  StyleKind kind = StyleKind::worker_only;
  Release release = k_newest_release;  ///< meaningful only for operator_release

  friend bool operator==(const EnvStyle& a, const EnvStyle& b) {
    return a.kind == b.kind && (a.kind != StyleKind::operator_release || a.release == b.release);
  }
  [[nodiscard]] bool is_operator() const { return kind == StyleKind::operator_release; }
};

/// Parses "operator@v1.7.0", "v1.7.0", "1.7.0", "legacy", "torchrun" or "worker-only".
/// Only known releases parse.
std::optional<EnvStyle> parse_style(std::string_view text);

/// "operator@v1.7.0", "legacy", "torchrun" or "worker-only" (parse_style reads it back).
std::string to_string(const EnvStyle& style);

/// "legacy, torchrun, worker-only, operator@vX.Y.Z (v1.3.0, ...)" for error messages and --help.
std::string known_styles_list();

}  // namespace kpt::model::pytorchjob
