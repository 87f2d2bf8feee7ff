#include "plugin/validate/input_selection.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kpt::plugin {
namespace {

TEST(Glob, StarsWithinAndAcrossSegments) {
  struct Case {
    const char* pattern;
    const char* text;
    bool match;
  };
  const Case cases[] = {
      {"*.yaml", "a.yaml", true},
      {"*.yaml", "a.yml", false},
      {"*.yaml", "dir/a.yaml", false},
      {"?.yaml", "a.yaml", true},
      {"?.yaml", "ab.yaml", false},
      {"dir/*", "dir/a.yaml", true},
      {"dir/*", "dir/sub/a.yaml", false},
      {"dir/**", "dir/sub/a.yaml", true},
      {"**/a.yaml", "a.yaml", true},
      {"**/a.yaml", "x/y/a.yaml", true},
      {"**/x/*.yaml", "a/x/b/x/c.yaml", true},
      {"a/**/b", "a/b", true},
      {"a/**/b", "a/x/y/b", true},
      {"a*b*c", "aXbYc", true},
      {"a*b*c", "aXbY", false},
      {"", "", true},
      {"*", "", true},
      {"values*.yaml", "values-prod.yaml", true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.pattern) + " ~ " + c.text);
    EXPECT_EQ(glob_match(c.pattern, c.text), c.match);
  }
}

TEST(PathMatches, SegmentPatternsAndDirectoryPrefixes) {
  struct Case {
    const char* pattern;
    const char* path;
    bool match;
  };
  const Case cases[] = {
      {"values.yaml", "chart/values.yaml", true},   {"templates", "chart/templates/job.yaml", true},
      {"templates", "chart/templates.yaml", false}, {"*.json", "a/b/c.json", true},
      {"charts/app", "charts/app/x/y.yaml", true},  {"charts/app/", "charts/app/y.yaml", true},
      {"./charts/app", "charts/app/y.yaml", true},  {"charts/app", "charts/application/y.yaml", false},
      {"jobs/**/*.yaml", "jobs/a/b/c.yaml", true},  {"jobs/*.yaml", "other/jobs/c.yaml", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.pattern) + " ~ " + c.path);
    EXPECT_EQ(path_matches(c.pattern, c.path), c.match);
  }
}

TEST(SelectFiles, SkipsHiddenPathsAndHelmChartsSayingSoThenFilters) {
  const std::vector<std::string> listed{
      "repo/.git/config.yaml",
      "repo/.github/workflows/ci.yml",
      "repo/.pre-commit-config.yaml",
      "repo/chart/Chart.yaml",
      "repo/chart/values.yaml",
      "repo/chart/values-prod.yaml",
      "repo/chart/crds/crd.yaml",
      "repo/chart/templates/job.yaml",
      "repo/chart/charts/sub/Chart.yaml",
      "repo/jobs/a.yaml",
      "repo/jobs/b.json",
      "repo/jobs/old/c.yaml",
  };
  struct Case {
    const char* name;
    InputFilter filter;
    std::vector<std::string> files;
  };
  const Case cases[] = {
      {"defaults",
       {},
       {"repo/chart/crds/crd.yaml", "repo/jobs/a.yaml", "repo/jobs/b.json", "repo/jobs/old/c.yaml"}},
      {"include", {{"*.yaml"}, {}}, {"repo/chart/crds/crd.yaml", "repo/jobs/a.yaml", "repo/jobs/old/c.yaml"}},
      {"exclude a folder",
       {{}, {"jobs/old"}},
       {"repo/chart/crds/crd.yaml", "repo/jobs/a.yaml", "repo/jobs/b.json"}},
      {"both", {{"jobs/**"}, {"*.json"}}, {"repo/jobs/a.yaml", "repo/jobs/old/c.yaml"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto got = select_files("repo", listed, c.filter);
    EXPECT_EQ(got.files, c.files);
    EXPECT_EQ(got.notes,
              std::vector<std::string>{
                  "skipped 5 files of the Helm chart 'repo/chart' (templates are not manifests until "
                  "rendered): helm template repo/chart | kubectl pytorch validate -"});
  }
}

yaml::InputFile stdin_input(std::string text) {
  return yaml::InputFile{"<stdin>", std::make_shared<const std::string>(std::move(text)), false};
}

TEST(HelmSources, StdinSplitsAtSourceCommentsWithTemplateLines) {
  const auto parts =
      split_helm_sources(stdin_input("---\n"
                                     "# Source: app/templates/service.yaml\n"
                                     "apiVersion: v1\n"
                                     "kind: Service\n"
                                     "---\n"
                                     "# Source: app/templates/job.yaml\n"
                                     "apiVersion: kubeflow.org/v1\n"
                                     "kind: PyTorchJob\n"
                                     "---\n"
                                     "# Source: app/templates/empty.yaml\n"
                                     "\n"));
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].name, "app/templates/service.yaml");
  EXPECT_EQ(*parts[0].text, "apiVersion: v1\nkind: Service\n");
  EXPECT_EQ(parts[1].name, "app/templates/job.yaml");
  EXPECT_EQ(*parts[1].text, "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\n");
}

TEST(HelmSources, TextBeforeTheFirstSourceKeepsTheNameAndPlainInputIsUntouched) {
  const auto parts = split_helm_sources(stdin_input("kind: A\n---\n# Source: c/templates/b.yaml\nkind: B\n"));
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].name, "<stdin>");
  EXPECT_EQ(*parts[0].text, "kind: A\n");
  EXPECT_EQ(parts[1].name, "c/templates/b.yaml");
  // A "# Source:" comment inside a document (not after ---) is an ordinary comment.
  const auto plain = split_helm_sources(stdin_input("kind: A\n# Source: not/a/boundary.yaml\nx: 1\n"));
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0].name, "<stdin>");
}

}  // namespace
}  // namespace kpt::plugin
