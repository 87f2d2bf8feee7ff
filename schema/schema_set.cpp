#include "schema/structural_schema.hpp"
#include "schema/structural_schema_impl.hpp"

#include <algorithm>

namespace kpt::schema {

const char* to_string(SchemaType type) {
  switch (type) {
    case SchemaType::any:
      return "any";
    case SchemaType::object:
      return "object";
    case SchemaType::array:
      return "array";
    case SchemaType::string:
      return "string";
    case SchemaType::integer:
      return "integer";
    case SchemaType::number:
      return "number";
    case SchemaType::boolean:
      return "boolean";
  }
  return "any";
}

const StructuralSchema* StructuralSchema::property(std::string_view name) const {
  const auto it = std::lower_bound(properties.begin(), properties.end(), name,
                                   [](const SchemaProperty& p, std::string_view n) { return p.name < n; });
  return it != properties.end() && it->name == name ? it->schema : nullptr;
}

std::vector<std::string> StructuralSchema::property_names() const {
  std::vector<std::string> out;
  out.reserve(properties.size());
  for (const auto& p : properties) out.push_back(p.name);
  return out;
}

SchemaSet::SchemaSet() : m_impl(std::make_unique<Impl>()) {}
SchemaSet::~SchemaSet() = default;
SchemaSet::SchemaSet(SchemaSet&&) noexcept = default;
SchemaSet& SchemaSet::operator=(SchemaSet&&) noexcept = default;

const StructuralSchema* SchemaSet::find(std::string_view api_version, std::string_view kind) const {
  const auto slash = api_version.find('/');
  // The core group has no "group/" part ("v1"); custom resources always have one.
  const std::string_view group =
      slash == std::string_view::npos ? std::string_view{} : api_version.substr(0, slash);
  const std::string_view version =
      slash == std::string_view::npos ? api_version : api_version.substr(slash + 1);
  for (const auto& e : m_impl->entries) {
    if (e.kind == kind && e.group == group && e.version == version) return e.root;
  }
  return nullptr;
}

std::vector<std::string> SchemaSet::api_versions(std::string_view kind) const {
  std::vector<std::string> out;
  for (const auto& e : m_impl->entries) {
    if (e.kind == kind) out.push_back(e.group.empty() ? e.version : e.group + "/" + e.version);
  }
  return out;
}

std::vector<std::string> SchemaSet::kinds_in_group(std::string_view group) const {
  std::vector<std::string> out;
  for (const auto& e : m_impl->entries) {
    if (e.group == group) out.push_back(e.kind);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

const std::string& SchemaSet::origin() const { return m_impl->origin; }
void SchemaSet::set_origin(std::string origin) { m_impl->origin = std::move(origin); }

}  // namespace kpt::schema
