#pragma once

#include "yaml/input_files.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace kpt::plugin {

/// `--include` / `--exclude` globs: `*` and `?` within one path segment, `**` across segments.
/// A pattern without '/' matches any one segment (a file or a directory name: `values.yaml`,
/// `templates`); one with '/' matches the path below the directory argument or a leading part of it
/// (`charts/app` takes everything under it).
struct InputFilter {
  std::vector<std::string> include;  ///< empty: every file the walk finds
  std::vector<std::string> exclude;
};

/// Whether `text` matches the glob `pattern` as a whole.
bool glob_match(std::string_view pattern, std::string_view text);

/// Whether `relative` (a path below a directory argument, '/'-separated) matches `pattern` as
/// InputFilter describes.
bool path_matches(std::string_view pattern, std::string_view relative);

/// The files of a directory walk to read, and why others were left out.
struct Selection {
  std::vector<std::string> files;
  std::vector<std::string> notes;  ///< one line per Helm chart skipped, for stderr
};

/// Picks from `listed` (the walk of `dir`, as FileReader::manifests_under gives it) what validate
/// reads: never what lies in a hidden file or directory (.git/, .github/, .pre-commit-config.yaml) or
/// in a Helm chart (a directory with Chart.yaml: its templates are not manifests until rendered, its
/// values and Chart.yaml never are), then what the filter includes and does not exclude.
Selection select_files(std::string_view dir, const std::vector<std::string>& listed,
                       const InputFilter& filter);

/// `helm template` output on stdin split at its `# Source: PATH` comments: one input per rendered
/// template, named PATH, whose line 1 is the template's first line (the line after the comment), so
/// findings point into the chart. Input without such comments comes back as it is.
std::vector<yaml::InputFile> split_helm_sources(const yaml::InputFile& input);

}  // namespace kpt::plugin
