#include "schema/structural_schema.hpp"
#include "schema/structural_schema_impl.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <cstdio>

namespace kpt::schema {
namespace {

constexpr std::size_t k_max_schema_depth = 64;

/// Turns openAPIV3Schema nodes into StructuralSchema nodes; stops at the first error and
/// names the CRD field that caused it.
class SchemaCompiler {
 public:
  explicit SchemaCompiler(std::deque<StructuralSchema>& nodes) : m_nodes(nodes) {}

  const StructuralSchema* compile(const yaml::Node& node, const std::string& path, std::size_t depth = 0) {
    if (!m_error.empty()) return nullptr;
    if (depth > k_max_schema_depth)
      return fail(path, "schema nested deeper than " + std::to_string(k_max_schema_depth));
    if (!node.is_map())
      return fail(path, std::string("expected a schema object, got ") + to_string(node.kind));
    StructuralSchema& s = m_nodes.emplace_back();
    for (std::size_t i = 0; i < node.keys.size() && m_error.empty(); ++i) {
      apply(s, node.keys[i], node.items[i], path + "." + node.keys[i], depth);
    }
    if (!m_error.empty()) return nullptr;
    std::sort(s.properties.begin(), s.properties.end(),
              [](const SchemaProperty& a, const SchemaProperty& b) { return a.name < b.name; });
    if (s.int_or_string) s.type = SchemaType::any;
    compile_pattern(s);
    return &s;
  }

  [[nodiscard]] const std::string& error() const { return m_error; }

 private:
  const StructuralSchema* fail(const std::string& path, const std::string& what) {
    if (m_error.empty()) m_error = "CRD field '" + path + "': " + what;
    return nullptr;
  }

  void apply(StructuralSchema& s, const std::string& key, const yaml::Node& v, const std::string& path,
             std::size_t depth) {
    if (key == "type") {
      set_type(s, v, path);
    } else if (key == "format") {
      s.format = string_of(v, path);
    } else if (key == "properties") {
      if (!v.is_map()) return void(fail(path, "expected a mapping of property schemas"));
      for (std::size_t i = 0; i < v.keys.size(); ++i) {
        s.properties.push_back({v.keys[i], compile(v.items[i], path + "." + v.keys[i], depth + 1)});
      }
    } else if (key == "required") {
      s.required = strings_of(v, path);
    } else if (key == "items") {
      if (v.is_seq()) return void(fail(path, "tuple 'items' (a list of schemas) is not structural"));
      s.items = compile(v, path, depth + 1);
    } else if (key == "additionalProperties") {
      if (v.kind == yaml::NodeKind::boolean) {
        s.additional_properties_allowed = v.boolean;
      } else {
        s.additional_properties = compile(v, path, depth + 1);
      }
    } else if (key == "enum") {
      if (!v.is_seq()) return void(fail(path, "expected a list of values"));
      for (const auto& item : v.items) s.enum_values.push_back(scalar_of(item));
    } else if (key == "default") {
      if (v.is_scalar()) s.default_value = scalar_of(v);
    } else if (key == "pattern") {
      s.pattern = string_of(v, path);
    } else if (key == "minimum" || key == "maximum") {
      if (v.kind != yaml::NodeKind::integer && v.kind != yaml::NodeKind::number)
        return void(fail(path, "expected a number"));
      (key == "minimum" ? s.minimum : s.maximum) =
          v.kind == yaml::NodeKind::integer ? static_cast<double>(v.integer) : v.number;
    } else if (key == "exclusiveMinimum") {
      s.exclusive_minimum = bool_of(v, path);
    } else if (key == "exclusiveMaximum") {
      s.exclusive_maximum = bool_of(v, path);
    } else if (key == "minLength") {
      s.min_length = count_of(v, path);
    } else if (key == "maxLength") {
      s.max_length = count_of(v, path);
    } else if (key == "minItems") {
      s.min_items = count_of(v, path);
    } else if (key == "maxItems") {
      s.max_items = count_of(v, path);
    } else if (key == "minProperties") {
      s.min_properties = count_of(v, path);
    } else if (key == "maxProperties") {
      s.max_properties = count_of(v, path);
    } else if (key == "nullable") {
      s.nullable = bool_of(v, path);
    } else if (key == "x-kubernetes-int-or-string") {
      s.int_or_string = bool_of(v, path);
    } else if (key == "x-kubernetes-preserve-unknown-fields") {
      s.preserve_unknown_fields = bool_of(v, path);
    } else if (key == "x-kubernetes-embedded-resource") {
      s.embedded_resource = bool_of(v, path);
    } else if (key == "x-kubernetes-list-type") {
      const auto t = string_of(v, path);
      if (t == "atomic")
        s.list_type = ListType::atomic;
      else if (t == "set")
        s.list_type = ListType::set;
      else if (t == "map")
        s.list_type = ListType::map;
      else
        fail(path, "unknown list type " + util::quote(t) + " (atomic, set or map)");
    } else if (key == "x-kubernetes-list-map-keys") {
      s.list_map_keys = strings_of(v, path);
    } else if (key == "x-kubernetes-map-type") {
      const auto t = string_of(v, path);
      if (t == "atomic")
        s.map_type = MapType::atomic;
      else if (t == "granular")
        s.map_type = MapType::granular;
      else
        fail(path, "unknown map type " + util::quote(t) + " (atomic or granular)");
    } else if (key == "x-kubernetes-validations") {
      add_validations(s, v, path);
    }
    // description, title, example, externalDocs, anyOf/allOf/oneOf/not (value validations
    // beside int-or-string) and unknown vendor extensions carry nothing we check.
  }

  void set_type(StructuralSchema& s, const yaml::Node& v, const std::string& path) {
    const auto t = string_of(v, path);
    if (t == "object")
      s.type = SchemaType::object;
    else if (t == "array")
      s.type = SchemaType::array;
    else if (t == "string")
      s.type = SchemaType::string;
    else if (t == "integer")
      s.type = SchemaType::integer;
    else if (t == "number")
      s.type = SchemaType::number;
    else if (t == "boolean")
      s.type = SchemaType::boolean;
    else if (m_error.empty())
      fail(path, "unknown type " + util::quote(t));
  }

  void add_validations(StructuralSchema& s, const yaml::Node& v, const std::string& path) {
    if (!v.is_seq()) return void(fail(path, "expected a list of rules"));
    for (std::size_t i = 0; i < v.items.size(); ++i) {
      const yaml::Node& r = v.items[i];
      const yaml::Node* rule = r.find("rule");
      if (rule == nullptr || !rule->is_string())
        return void(fail(path + "[" + std::to_string(i) + "].rule", "missing"));
      CelRule out;
      out.rule = rule->text;
      out.message = optional_string(r, "message");
      out.message_expression = optional_string(r, "messageExpression");
      out.reason = optional_string(r, "reason");
      out.field_path = optional_string(r, "fieldPath");
      const yaml::Node* optional_old_self = r.find("optionalOldSelf");
      out.optional_old_self = optional_old_self != nullptr &&
                              optional_old_self->kind == yaml::NodeKind::boolean &&
                              optional_old_self->boolean;
      compile_cel_rule(out);
      s.validations.push_back(std::move(out));
    }
  }

  static std::string optional_string(const yaml::Node& map, std::string_view key) {
    const yaml::Node* v = map.find(key);
    return v != nullptr && v->is_string() ? v->text : std::string();
  }

  std::string string_of(const yaml::Node& v, const std::string& path) {
    if (!v.is_string()) fail(path, std::string("expected a string, got ") + to_string(v.kind));
    return v.text;
  }

  std::vector<std::string> strings_of(const yaml::Node& v, const std::string& path) {
    std::vector<std::string> out;
    if (!v.is_seq()) return fail(path, "expected a list of strings"), out;
    for (const auto& item : v.items) out.push_back(string_of(item, path));
    return out;
  }

  bool bool_of(const yaml::Node& v, const std::string& path) {
    if (v.kind != yaml::NodeKind::boolean)
      fail(path, std::string("expected a boolean, got ") + to_string(v.kind));
    return v.boolean;
  }

  std::uint64_t count_of(const yaml::Node& v, const std::string& path) {
    if (v.kind != yaml::NodeKind::integer || v.integer < 0)
      return fail(path, "expected a non-negative integer"), 0;
    return static_cast<std::uint64_t>(v.integer);
  }

  static SchemaScalar scalar_of(const yaml::Node& v) {
    switch (v.kind) {
      case yaml::NodeKind::boolean:
        return {v.kind, v.boolean ? "true" : "false"};
      case yaml::NodeKind::integer:
        return {v.kind, v.int_overflow ? v.text : std::to_string(v.integer)};
      default:
        return {v.kind, v.is_scalar() ? v.text : std::string()};
    }
  }

  std::deque<StructuralSchema>& m_nodes;
  std::string m_error;
};

const yaml::Node* required_string(const yaml::Node& root, std::initializer_list<std::string_view> path) {
  const yaml::Node* n = root.at_path(path);
  return n != nullptr && n->is_string() && !n->text.empty() ? n : nullptr;
}

}  // namespace

Expected<SchemaSet> SchemaSet::from_openapi(const yaml::Node& open_api_v3_schema, const std::string& group,
                                            const std::string& version, const std::string& kind) {
  SchemaSet set;
  SchemaCompiler compiler(set.m_impl->nodes);
  const StructuralSchema* root = compiler.compile(open_api_v3_schema, "openAPIV3Schema");
  if (root == nullptr) return make_error(ErrorCode::parse, compiler.error());
  set.m_impl->entries.push_back({group, version, kind, root});
  set.m_impl->origin = "OpenAPI schema for " + group + "/" + version + " " + kind;
  return set;
}

Expected<SchemaSet> SchemaSet::from_openapis(const std::vector<KindSchema>& kinds) {
  SchemaSet set;
  SchemaCompiler compiler(set.m_impl->nodes);
  for (const auto& k : kinds) {
    const StructuralSchema* root = compiler.compile(*k.schema, k.kind + " openAPIV3Schema");
    if (root == nullptr) return make_error(ErrorCode::parse, compiler.error());
    set.m_impl->entries.push_back({k.group, k.version, k.kind, root});
  }
  set.m_impl->origin = "OpenAPI schemas of " + std::to_string(kinds.size()) + " kinds";
  return set;
}

namespace {

/// The CRD's identity fields, or the error naming the one that is wrong.
struct CrdHeader {
  const yaml::Node* group = nullptr;
  const yaml::Node* kind = nullptr;
  const yaml::Node* versions = nullptr;
};

Expected<CrdHeader> crd_header(const yaml::Node& root) {
  const yaml::Node* kind = root.find("kind");
  if (kind == nullptr || !kind->is_string() || kind->text != "CustomResourceDefinition") {
    return make_error(ErrorCode::parse,
                      "not a CustomResourceDefinition: field 'kind' is " +
                          (kind == nullptr ? std::string("missing") : util::quote(kind->text)));
  }
  const yaml::Node* api = root.find("apiVersion");
  if (api == nullptr || !api->is_string() || api->text != "apiextensions.k8s.io/v1") {
    return make_error(ErrorCode::parse,
                      "CRD field 'apiVersion': only 'apiextensions.k8s.io/v1' is supported, got " +
                          util::quote(api != nullptr ? api->text : std::string()));
  }
  CrdHeader h;
  h.group = required_string(root, {"spec", "group"});
  if (h.group == nullptr) return make_error(ErrorCode::parse, "CRD field 'spec.group': missing");
  h.kind = required_string(root, {"spec", "names", "kind"});
  if (h.kind == nullptr) return make_error(ErrorCode::parse, "CRD field 'spec.names.kind': missing");
  h.versions = root.at_path({"spec", "versions"});
  if (h.versions == nullptr || !h.versions->is_seq() || h.versions->items.empty()) {
    return make_error(ErrorCode::parse, "CRD field 'spec.versions': missing or empty");
  }
  return h;
}

/// Compiles every served version of one CRD into `entries`; returns how many it added.
Expected<std::size_t> add_crd(const yaml::Document& crd, SchemaCompiler& compiler,
                              std::vector<SchemaEntry>& entries) {
  auto header = crd_header(crd.root);
  if (!header) return header.error();
  const yaml::Node* versions = header->versions;
  std::size_t added = 0;
  for (std::size_t i = 0; i < versions->items.size(); ++i) {
    const yaml::Node& v = versions->items[i];
    const std::string at = "spec.versions[" + std::to_string(i) + "]";
    const yaml::Node* name = required_string(v, {"name"});
    if (name == nullptr) return make_error(ErrorCode::parse, "CRD field '" + at + ".name': missing");
    const yaml::Node* served = v.find("served");
    if (served != nullptr && served->kind == yaml::NodeKind::boolean && !served->boolean) continue;
    const yaml::Node* schema = v.at_path({"schema", "openAPIV3Schema"});
    if (schema == nullptr) {
      return make_error(
          ErrorCode::parse,
          "CRD field '" + at + ".schema.openAPIV3Schema': missing for version " + util::quote(name->text));
    }
    const StructuralSchema* compiled = compiler.compile(*schema, at + ".schema.openAPIV3Schema");
    if (compiled == nullptr) return make_error(ErrorCode::parse, compiler.error());
    entries.push_back({header->group->text, name->text, header->kind->text, compiled});
    ++added;
  }
  if (added == 0) return make_error(ErrorCode::parse, "CRD field 'spec.versions': no version is served");
  return added;
}

std::string crd_origin(const yaml::Document& crd) {
  const yaml::Node* crd_name = crd.root.at_path({"metadata", "name"});
  const yaml::Node* kind = crd.root.at_path({"spec", "names", "kind"});
  const yaml::Node* named = crd_name != nullptr ? crd_name : kind;
  std::string origin = "CRD " + util::quote(named != nullptr ? named->text : std::string());
  if (!crd.file.empty()) origin += " from " + util::quote(crd.file);
  return origin;
}

}  // namespace

Expected<SchemaSet> SchemaSet::from_crd(const yaml::Document& crd) { return from_crds({&crd}); }

Expected<SchemaSet> SchemaSet::from_crds(const std::vector<const yaml::Document*>& crds) {
  if (crds.empty()) return make_error(ErrorCode::parse, "no CustomResourceDefinition given");
  SchemaSet set;
  SchemaCompiler compiler(set.m_impl->nodes);
  for (const yaml::Document* crd : crds) {
    auto added = add_crd(*crd, compiler, set.m_impl->entries);
    if (!added) return crds.size() == 1 ? added.error() : added.error().context(crd_origin(*crd));
  }
  set.m_impl->origin = crd_origin(*crds.front());
  if (crds.size() > 1) set.m_impl->origin += " and " + std::to_string(crds.size() - 1) + " more";
  return set;
}

}  // namespace kpt::schema
