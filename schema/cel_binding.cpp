#include "schema/cel_binding.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace kpt::schema {
namespace {

using cel::Value;

/// What the API server sees under a schema with `format` (k8s.io/apiserver/pkg/cel/types.go).
Value string_value(const yaml::Node& v, const StructuralSchema& s) {
  if (s.format == "date-time" || s.format == "date") return Value::opaque("google.protobuf.Timestamp");
  if (s.format == "duration") return Value::opaque("google.protobuf.Duration");
  if (s.format == "byte") return Value::opaque("bytes");
  return Value::string(v.text);
}

/// An integer, also for a number with no fraction (2.0 reaches the server as JSON 2).
Value number_value(const yaml::Node& v, const StructuralSchema& s) {
  const double d = v.kind == yaml::NodeKind::integer ? static_cast<double>(v.integer) : v.number;
  if (v.kind == yaml::NodeKind::integer && v.int_overflow)
    return Value::from_double(std::strtod(v.text.c_str(), nullptr));
  if (s.type == SchemaType::number) return Value::from_double(d);
  if (v.kind == yaml::NodeKind::integer) return Value::int64(v.integer);
  if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) < 9.2e18)
    return Value::int64(static_cast<std::int64_t>(d));
  return Value::from_double(d);
}

Value scalar_default(const SchemaScalar& d, const StructuralSchema& s) {
  switch (d.kind) {
    case yaml::NodeKind::boolean:
      return Value::boolean(d.text == "true");
    case yaml::NodeKind::integer:
      if (s.type == SchemaType::number) return Value::from_double(std::strtod(d.text.c_str(), nullptr));
      return Value::int64(std::strtoll(d.text.c_str(), nullptr, 10));
    case yaml::NodeKind::number:
      return Value::from_double(std::strtod(d.text.c_str(), nullptr));
    case yaml::NodeKind::string:
      return Value::string(d.text);
    default:
      return Value::null();
  }
}

class Binder {
 public:
  Value bind(const yaml::Node& v, const StructuralSchema* s, bool resource_root,
             const std::vector<std::string>* only) {
    static const StructuralSchema k_any;
    const StructuralSchema& schema = s != nullptr ? *s : k_any;
    if (schema.type == SchemaType::any && schema.preserve_unknown_fields && !schema.int_or_string) {
      // No type: the API server binds such data as an opaque value that only supports ==.
      return Value::opaque("unknown (x-kubernetes-preserve-unknown-fields)");
    }
    switch (v.kind) {
      case yaml::NodeKind::null:
        return Value::null();
      case yaml::NodeKind::boolean:
        return Value::boolean(v.boolean);
      case yaml::NodeKind::integer:
      case yaml::NodeKind::number:
        return number_value(v, schema);
      case yaml::NodeKind::string:
        return string_value(v, schema);
      case yaml::NodeKind::sequence:
        return list(v, schema);
      case yaml::NodeKind::mapping:
        return object(v, schema, resource_root, only);
    }
    return Value::null();
  }

 private:
  Value list(const yaml::Node& v, const StructuralSchema& s) {
    std::vector<Value> items;
    items.reserve(v.items.size());
    for (const auto& item : v.items) items.push_back(bind(item, s.items, false, nullptr));
    return Value::list(std::move(items));
  }

  /// The schema of `key` in an object, or nullptr when CEL cannot see that field.
  static const StructuralSchema* field_schema(const StructuralSchema& s, const std::string& key,
                                              bool& visible) {
    const StructuralSchema* p = s.property(key);
    visible = p != nullptr || s.additional_properties != nullptr || s.additional_properties_allowed ||
              (s.properties.empty() && !s.preserve_unknown_fields && s.type == SchemaType::any);
    return p != nullptr ? p : s.additional_properties;
  }

  Value object(const yaml::Node& v, const StructuralSchema& s, bool resource_root,
               const std::vector<std::string>* only) {
    cel::MapBuilder out(!s.properties.empty() || resource_root);
    out.reserve(v.keys.size());
    for (std::size_t i = 0; i < v.keys.size(); ++i) {
      const std::string& key = v.keys[i];
      if (only != nullptr && std::find(only->begin(), only->end(), key) == only->end()) continue;
      if (resource_root && key == "metadata") {
        out.add(key, object_meta(v.items[i]));
        continue;
      }
      bool visible = false;
      const StructuralSchema* p = field_schema(s, key, visible);
      const bool root_header = resource_root && (key == "apiVersion" || key == "kind");
      if (!visible && !root_header) continue;
      const yaml::Node& value = v.items[i];
      if (value.kind == yaml::NodeKind::null && p != nullptr && !p->nullable)
        continue;  // pruned by the server
      out.add(key, bind(value, p, p != nullptr && p->embedded_resource, nullptr));
    }
    add_defaults(v, s, only, out);
    return std::move(out).build();
  }

  static void add_defaults(const yaml::Node& v, const StructuralSchema& s,
                           const std::vector<std::string>* only, cel::MapBuilder& out) {
    for (const auto& p : s.properties) {
      if (p.schema == nullptr || !p.schema->default_value || v.find(p.name) != nullptr) continue;
      if (only != nullptr && std::find(only->begin(), only->end(), p.name) == only->end()) continue;
      out.add(p.name, scalar_default(*p.schema->default_value, *p.schema));
    }
  }

  /// A resource's metadata as CEL sees it: name and generateName only (the API server types
  /// ObjectMeta so for rules, k8s.io/apiserver/pkg/cel/common/schemas.go WithTypeAndObjectMeta).
  static Value object_meta(const yaml::Node& meta) {
    cel::MapBuilder out(true);
    for (const char* field : {"name", "generateName"}) {
      const yaml::Node* f = meta.find(field);
      if (f != nullptr && f->is_string()) out.add(field, Value::string(f->text));
    }
    return std::move(out).build();
  }
};

}  // namespace

cel::Value to_cel_value(const yaml::Node& value, const StructuralSchema& schema, bool resource_root,
                        const std::vector<std::string>* only) {
  return Binder().bind(value, &schema, resource_root, only);
}

}  // namespace kpt::schema
