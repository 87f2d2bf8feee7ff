#pragma once

#include "util/expected.hpp"

#include <string>

namespace kpt::kube {

/// The file access the kubeconfig loader needs, so tests can run it on an in-memory tree.
class FileSystem {
 public:
  virtual ~FileSystem() = default;
  /// Whole file; ErrorCode::not_found when it does not exist, ErrorCode::io otherwise.
  virtual Expected<std::string> read(const std::string& path) const = 0;
  [[nodiscard]] virtual bool is_file(const std::string& path) const = 0;
};

class RealFileSystem final : public FileSystem {
 public:
  Expected<std::string> read(const std::string& path) const override;
  [[nodiscard]] bool is_file(const std::string& path) const override;
};

/// The folder part of `path` ("." when it has none).
std::string dir_of(const std::string& path);
/// `path` made absolute against `base_dir` unless it already is (or is empty).
std::string resolve_path(const std::string& base_dir, const std::string& path);

}  // namespace kpt::kube
