#include "model/pytorchjob/env_style.hpp"

namespace kpt::model::pytorchjob {

std::optional<EnvStyle> parse_style(std::string_view text) {
  if (text == "legacy") return EnvStyle{StyleKind::legacy, k_newest_release};
  if (text == "torchrun") return EnvStyle{StyleKind::torchrun, k_newest_release};
  if (text == "worker-only") return EnvStyle{StyleKind::worker_only, k_newest_release};
  if (const auto release = parse_release(text)) return EnvStyle{StyleKind::operator_release, *release};
  return std::nullopt;
}

std::string to_string(const EnvStyle& style) {
  switch (style.kind) {
    case StyleKind::operator_release:
      return "operator@" + style.release.to_string();
    case StyleKind::legacy:
      return "legacy";
    case StyleKind::torchrun:
      return "torchrun";
    case StyleKind::worker_only:
      return "worker-only";
  }
  return "worker-only";
}

std::string known_styles_list() {
  return "worker-only, legacy, torchrun, operator@vX.Y.Z (" + known_releases_list() + ")";
}

}  // namespace kpt::model::pytorchjob
