#include "schema/builtin/builtin_schema.hpp"

#include <stdexcept>
#include <string>

namespace kpt::schema {

// Defined in the build-generated builtin_schema_data.cpp (kpt_schema_compile) and
// builtin_go_types_data.cpp and builtin_patch_keys_data.cpp (embed_text.py).
std::string_view k_builtin_kinds();
std::string_view builtin_go_types_text();
std::string_view builtin_patch_keys_text();

namespace {

SchemaSet load_builtin_schemas() {
  auto set = SchemaSet::deserialize(k_builtin_kinds());
  if (!set) throw std::logic_error("built-in schemas: " + set.error().message);
  return std::move(set).value();
}

}  // namespace

const SchemaSet& builtin_schemas() {
  static const SchemaSet set = load_builtin_schemas();
  return set;
}

std::string_view builtin_go_types_json() { return builtin_go_types_text(); }

std::string_view builtin_patch_keys_json() { return builtin_patch_keys_text(); }

}  // namespace kpt::schema
