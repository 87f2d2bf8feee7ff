#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace kpt::model::pytorchjob {

/// A Training Operator v1 release whose behaviour we model: the kubeflow/trainer (formerly
/// training-operator) tags v1.3.0 to v1.9.4.
struct Release {
  int major = 1;
  int minor = 9;
  int patch = 4;

  friend auto operator<=>(const Release&, const Release&) = default;
  [[nodiscard]] std::string to_string() const;  ///< "v1.9.4"
  [[nodiscard]] bool at_least(int mi, int pa = 0) const { return *this >= Release{1, mi, pa}; }
};

/// Every v1 release from v1.3.0 to v1.9.4, oldest first.
inline constexpr std::array<Release, 12> k_releases{{
    {1, 3, 0},
    {1, 4, 0},
    {1, 5, 0},
    {1, 6, 0},
    {1, 7, 0},
    {1, 8, 0},
    {1, 8, 1},
    {1, 9, 0},
    {1, 9, 1},
    {1, 9, 2},
    {1, 9, 3},
    {1, 9, 4},
}};
inline constexpr Release k_newest_release{1, 9, 4};

/// Parses "v1.7.0" or "1.7.0" (also "operator@v1.7.0"). Only known releases parse.
std::optional<Release> parse_release(std::string_view text);

/// "v1.3.0, v1.4.0, ..." for error messages and --help.
std::string known_releases_list();

}  // namespace kpt::model::pytorchjob
