#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace kpt::plugin {

/// What the build recorded of the source it compiled (cmake/BuildInfo.cmake, at every build).
struct BuildInfo {
  std::string
      git_version;         ///< `git describe`: v0.1.0, v0.1.0-3-g<commit>, -dirty; no git: v<project version>
  std::string git_commit;  ///< the full commit hash; empty when the tree had no git history
  std::string git_tree_state;  ///< clean, dirty (uncommitted changes), or archive (no git history)
};

/// This binary's build information (defined in the generated build_info.cpp).
BuildInfo build_info();

/// `version`'s text: the program and its git version, then the commit it was built from.
std::string client_version_text(const BuildInfo& info);

/// `version -o json|yaml`: `clientVersion` with the fields `kubectl version` uses for the same facts.
nlohmann::json client_version_document(const BuildInfo& info);

}  // namespace kpt::plugin
