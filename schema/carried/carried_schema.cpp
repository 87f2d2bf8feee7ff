#include "schema/carried/carried_schema.hpp"

#include <stdexcept>
#include <string>

#include "schema/node_json.hpp"

#include <nlohmann/json.hpp>

namespace kpt::schema {

// Defined in the build-generated carried_openapi_data.cpp (embed_text.py).
std::string_view carried_openapi_text();
#ifdef KPT_CARRIED_COMPILED
// Defined in the build-generated carried_schema_data.cpp (kpt_schema_compile): the SchemaSet's binary form.
std::string_view k_carried_pytorchjob_v1();
#endif

std::string_view carried_openapi_json() { return carried_openapi_text(); }

namespace {

SchemaSet load_carried_schema() {
#ifdef KPT_CARRIED_COMPILED
  auto set = SchemaSet::deserialize(k_carried_pytorchjob_v1());
  if (!set) throw std::logic_error("carried schema: " + set.error().message);
  return std::move(set).value();
#else
  // Without the build-time compiler (kpt_schema_compile), compile the embedded JSON once per process.
  const auto json = nlohmann::json::parse(carried_openapi_text(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) throw std::logic_error("carried schema: embedded JSON does not parse");
  auto set = SchemaSet::from_openapi(from_json(json), "kubeflow.org", "v1", "PyTorchJob");
  if (!set) throw std::logic_error("carried schema: " + set.error().message);
  SchemaSet out = std::move(set).value();
  out.set_origin("carried " + std::string(k_carried_schema_release));
  return out;
#endif
}

}  // namespace

const SchemaSet& carried_schema() {
  static const SchemaSet set = load_carried_schema();
  return set;
}

}  // namespace kpt::schema
