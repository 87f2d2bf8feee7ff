#pragma once

#include "schema/structural_schema.hpp"
#include "yaml/manifest_reader.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace kpt::schema::testing {

inline std::string fixture_path() {
  return std::string(KPT_SOURCE_DIR) + "/testdata/crds/pytorchjob-mini-crd.yaml";
}

/// The one document of `text`, parsed by the project's reader (positions included).
inline yaml::Document parse_one(const std::string& name, const std::string& text) {
  auto read = yaml::read_manifests(name, std::make_shared<const std::string>(text));
  EXPECT_TRUE(read.findings.empty()) << (read.findings.empty() ? "" : read.findings.front().message);
  EXPECT_EQ(read.documents.size(), 1u);
  return read.documents.empty() ? yaml::Document{} : std::move(read.documents.front());
}

inline const char* severity_name(Severity s) {
  return s == Severity::error ? "error" : s == Severity::warning ? "warning" : "info";
}

/// "line:col severity path: message [rule]" plus " hint: ..." when there is one.
inline std::vector<std::string> render(const Diagnostics& diags) {
  std::vector<std::string> out;
  for (const auto& d : diags) {
    std::string line = d.location.file + ":" + std::to_string(d.location.line) + ":" +
                       std::to_string(d.location.col) + " " + severity_name(d.severity) + " " + d.field_path +
                       ": " + d.message + " [" + d.rule_id + "]";
    if (!d.hint.empty()) line += " hint: " + d.hint;
    out.push_back(std::move(line));
  }
  return out;
}

}  // namespace kpt::schema::testing
