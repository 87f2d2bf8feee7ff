#include "schema/schema_cache.hpp"

#include "util/file_io.hpp"

#include <cstdio>
#include <fstream>
#include <system_error>

namespace kpt::schema {
namespace {
constexpr int k_cache_format = 2;  // follows the SchemaSet binary format version

}  // namespace

std::uint64_t fnv1a64(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::filesystem::path SchemaCache::entry_path(std::string_view crd_text) const {
  char name[64];
  std::snprintf(name, sizeof name, "%016llx-%zu-v%d.kpts", static_cast<unsigned long long>(fnv1a64(crd_text)),
                crd_text.size(), k_cache_format);
  return m_dir / name;
}

Expected<SchemaSet> SchemaCache::load_or_compile(std::string_view crd_text,
                                                 const std::function<Expected<SchemaSet>()>& compile) {
  m_hit = false;
  m_store_error.clear();
  const auto path = entry_path(crd_text);
  if (auto bytes = util::read_file(path.string())) {
    auto cached = SchemaSet::deserialize(*bytes);
    if (cached) {
      m_hit = true;
      return cached;
    }
    // A damaged entry (partial write, disk trouble, older build): compile again and replace it.
  }
  auto compiled = compile();
  if (!compiled) return compiled;
  std::error_code ec;
  std::filesystem::create_directories(m_dir, ec);
  if (ec) {
    m_store_error = "creating cache directory '" + m_dir.string() + "': " + ec.message();
    return compiled;
  }
  if (auto stored = util::write_file_atomically(path.string(), compiled->serialize()); !stored) {
    m_store_error = stored.error().message;
  }
  return compiled;
}

}  // namespace kpt::schema
