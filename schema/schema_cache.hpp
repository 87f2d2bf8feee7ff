#pragma once

#include "schema/structural_schema.hpp"
#include "util/expected.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace kpt::schema {

/// FNV-1a 64-bit hash, for cache keys (not for security).
std::uint64_t fnv1a64(std::string_view bytes);

/// Compiled SchemaSets for `--crd FILE`, stored as files under a directory the caller picks,
/// keyed by a hash and the size of the CRD text plus the binary format version, so an edited
/// CRD or a new build never reads a stale entry. A damaged entry is ignored and rewritten.
class SchemaCache {
 public:
  explicit SchemaCache(std::filesystem::path dir) : m_dir(std::move(dir)) {}

  /// The schemas for `crd_text`: from the cache when a sound entry exists, otherwise from
  /// `compile()`, which is then stored (a failure to store is not an error: see last_store_error).
  Expected<SchemaSet> load_or_compile(std::string_view crd_text,
                                      const std::function<Expected<SchemaSet>()>& compile);

  /// The entry's file name for `crd_text` ("<hash>-<size>-v<format>.kpts").
  [[nodiscard]] std::filesystem::path entry_path(std::string_view crd_text) const;
  [[nodiscard]] bool last_was_hit() const { return m_hit; }
  [[nodiscard]] const std::string& last_store_error() const { return m_store_error; }

 private:
  std::filesystem::path m_dir;
  bool m_hit = false;
  std::string m_store_error;
};

}  // namespace kpt::schema
