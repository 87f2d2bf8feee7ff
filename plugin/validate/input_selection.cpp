// Which files of a repository validate reads (a CI step over a checkout), and stdin's rendered Helm
// templates mapped back to the chart's files.
#include "plugin/validate/input_selection.hpp"

#include "util/strings.hpp"

#include <algorithm>
#include <map>

namespace kpt::plugin {

namespace {

std::vector<std::string_view> path_segments(std::string_view path) {
  std::vector<std::string_view> out;
  while (!path.empty()) {
    const auto slash = path.find('/');
    const auto part = path.substr(0, slash);
    if (!part.empty() && part != ".") out.push_back(part);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

/// `path` below `dir`: the walk's paths start with `dir` and a '/'.
std::string_view below(std::string_view dir, std::string_view path) {
  if (path.substr(0, dir.size()) == dir) path.remove_prefix(dir.size());
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  return path;
}

std::string_view parent_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

std::string_view base_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

/// Chart directories (relative to the walk's directory) of the files listed, outermost first: a subchart
/// under charts/ is its parent's file.
std::vector<std::string> chart_roots(const std::vector<std::string_view>& relative) {
  std::vector<std::string> out;
  for (const auto& r : relative) {
    if (base_name(r) == "Chart.yaml" || base_name(r) == "Chart.yml") out.emplace_back(parent_of(r));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.size() < b.size(); });
  return out;
}

/// Whether the chart at `root` owns `relative` as a file that is not a manifest: Chart.yaml, a values
/// file, anything under templates/ or charts/. Its crds/ are plain manifests and validated.
bool helm_file(std::string_view root, std::string_view relative) {
  std::string_view rest = relative;
  if (!root.empty()) {
    if (rest.size() <= root.size() || rest.substr(0, root.size()) != root || rest[root.size()] != '/')
      return false;
    rest.remove_prefix(root.size() + 1);
  }
  const auto first = rest.substr(0, rest.find('/'));
  if (first == rest) {  // at the chart's top
    return first == "Chart.yaml" || first == "Chart.yml" || util::starts_with(first, "values");
  }
  return first == "templates" || first == "charts";
}

bool hidden(std::string_view relative) {
  const auto parts = path_segments(relative);
  return std::any_of(parts.begin(), parts.end(), [](std::string_view p) { return p.front() == '.'; });
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view text) {
  // match[i][j]: pattern from i matches text from j; filled from the ends, O(pattern * text).
  const std::size_t m = pattern.size();
  const std::size_t n = text.size();
  std::vector<char> match((m + 1) * (n + 1), 0);
  const auto at = [&](std::size_t i, std::size_t j) -> char& { return match[i * (n + 1) + j]; };
  at(m, n) = 1;
  for (std::size_t i = m; i-- > 0;) {
    const bool double_star = pattern[i] == '*' && i + 1 < m && pattern[i + 1] == '*';
    for (std::size_t j = n + 1; j-- > 0;) {
      const bool more = j < n;
      bool ok = false;
      if (double_star) {
        ok = at(i + 2, j) || (more && at(i, j + 1)) || (i + 2 < m && pattern[i + 2] == '/' && at(i + 3, j));
      } else if (pattern[i] == '*') {
        ok = at(i + 1, j) || (more && text[j] != '/' && at(i, j + 1));
      } else if (pattern[i] == '?') {
        ok = more && text[j] != '/' && at(i + 1, j + 1);
      } else {
        ok = more && pattern[i] == text[j] && at(i + 1, j + 1);
      }
      at(i, j) = ok ? 1 : 0;
    }
  }
  return at(0, 0) != 0;
}

bool path_matches(std::string_view pattern, std::string_view relative) {
  while (util::starts_with(pattern, "./")) pattern.remove_prefix(2);
  while (!pattern.empty() && pattern.back() == '/') pattern.remove_suffix(1);
  if (pattern.empty()) return false;
  const auto parts = path_segments(relative);
  if (pattern.find('/') == std::string_view::npos) {
    return std::any_of(parts.begin(), parts.end(),
                       [&](std::string_view p) { return glob_match(pattern, p); });
  }
  std::string prefix;
  for (const auto& part : parts) {
    if (!prefix.empty()) prefix += '/';
    prefix += part;
    if (glob_match(pattern, prefix)) return true;
  }
  return false;
}

Selection select_files(std::string_view dir, const std::vector<std::string>& listed,
                       const InputFilter& filter) {
  std::vector<std::string_view> relative;
  relative.reserve(listed.size());
  for (const auto& path : listed) relative.push_back(below(dir, path));
  const auto charts = chart_roots(relative);
  std::map<std::string, std::size_t> skipped_per_chart;
  Selection out;
  for (std::size_t i = 0; i < listed.size(); ++i) {
    const auto rel = relative[i];
    if (hidden(rel)) continue;
    const auto chart =
        std::find_if(charts.begin(), charts.end(), [&](const auto& root) { return helm_file(root, rel); });
    if (chart != charts.end()) {
      ++skipped_per_chart[*chart];
      continue;
    }
    const auto matches = [rel](const std::string& p) { return path_matches(p, rel); };
    if (!filter.include.empty() && std::none_of(filter.include.begin(), filter.include.end(), matches))
      continue;
    if (std::any_of(filter.exclude.begin(), filter.exclude.end(), matches)) continue;
    out.files.push_back(listed[i]);
  }
  for (const auto& [root, n] : skipped_per_chart) {
    std::string shown(dir);
    if (!root.empty()) shown += (shown.empty() || shown.back() == '/' ? "" : "/") + root;
    out.notes.push_back("skipped " + std::to_string(n) + (n == 1 ? " file" : " files") +
                        " of the Helm chart " + util::quote(shown) +
                        " (templates are not manifests until rendered): helm template " + shown +
                        " | kubectl pytorch validate -");
  }
  return out;
}

std::vector<yaml::InputFile> split_helm_sources(const yaml::InputFile& input) {
  if (input.text == nullptr || input.too_large) return {input};
  const std::string& text = *input.text;
  struct Line {
    std::size_t begin;
    std::size_t end;  ///< past the newline
  };
  std::vector<Line> lines;
  for (std::size_t at = 0; at < text.size();) {
    const auto nl = text.find('\n', at);
    const std::size_t end = nl == std::string::npos ? text.size() : nl + 1;
    lines.push_back({at, end});
    at = end;
  }
  const auto content = [&](std::size_t i) {
    return util::trim(std::string_view(text).substr(lines[i].begin, lines[i].end - lines[i].begin));
  };
  constexpr std::string_view k_source = "# Source: ";
  struct Chunk {
    std::size_t separator;  ///< the '---' line before the comment (or the comment's own line)
    std::size_t comment;
  };
  std::vector<Chunk> chunks;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!util::starts_with(content(i), k_source)) continue;
    std::size_t sep = i;
    while (sep > 0 && content(sep - 1).empty()) --sep;
    if (sep > 0 && content(sep - 1) == "---") {
      chunks.push_back({sep - 1, i});
    } else if (sep == 0) {
      chunks.push_back({0, i});
    }
  }
  if (chunks.empty()) return {input};
  std::vector<yaml::InputFile> out;
  const auto slice = [&](std::size_t from_line, std::size_t to_line) {
    const std::size_t b = from_line < lines.size() ? lines[from_line].begin : text.size();
    const std::size_t e = to_line < lines.size() ? lines[to_line].begin : text.size();
    return text.substr(b, e > b ? e - b : 0);
  };
  const auto head = slice(0, chunks.front().separator);
  if (!util::trim(head).empty())
    out.push_back({input.name, std::make_shared<const std::string>(head), false});
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    const std::size_t end = c + 1 < chunks.size() ? chunks[c + 1].separator : lines.size();
    std::string name(util::trim(content(chunks[c].comment).substr(k_source.size())));
    auto body = slice(chunks[c].comment + 1, end);
    if (util::trim(body).empty()) continue;  // a template that renders nothing
    out.push_back({std::move(name), std::make_shared<const std::string>(std::move(body)), false});
  }
  return out;
}

}  // namespace kpt::plugin
