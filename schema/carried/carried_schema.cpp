#include "schema/carried/carried_schema.hpp"

#include <stdexcept>
#include <string>

namespace kpt::schema {

// Defined in the build-generated carried_openapi_data.cpp (embed_text.py).
std::string_view carried_openapi_text();
// Defined in the build-generated carried_schema_data.cpp (kpt_schema_compile): the SchemaSet's binary form,
// compiled at build time so that no run parses or compiles the schema.
std::string_view k_carried_pytorchjob_v1();

std::string_view carried_openapi_json() { return carried_openapi_text(); }

namespace {

SchemaSet load_carried_schema() {
  auto set = SchemaSet::deserialize(k_carried_pytorchjob_v1());
  if (!set) throw std::logic_error("carried schema: " + set.error().message);
  return std::move(set).value();
}

}  // namespace

const SchemaSet& carried_schema() {
  static const SchemaSet set = load_carried_schema();
  return set;
}

}  // namespace kpt::schema
