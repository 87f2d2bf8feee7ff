#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

namespace kpt::testing {

/// A fresh temporary directory for one test: removed when the test passed, kept (and named on
/// stderr) when it failed.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "kpt-test") {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + ".XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
    m_path = pattern;
  }
  ~TempDir() {
    if (::testing::Test::HasFailure()) {
      std::cerr << "kept test directory: " << m_path << "\n";
      return;
    }
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] const std::string& path() const { return m_path; }
  [[nodiscard]] std::string file(const std::string& name) const { return m_path + "/" + name; }

 private:
  std::string m_path;
};

}  // namespace kpt::testing
