#include "model/k8s/quantity.hpp"
#include "schema/structural_cel.hpp"
#include "schema/structural_findings.hpp"
#include "schema/structural_schema.hpp"
#include "schema/structural_schema_impl.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <unordered_map>

namespace kpt::schema {
namespace {

constexpr std::size_t k_max_findings = 200;

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  // Prefer the short form when it round-trips ("0.5", not "0.50000000000000000").
  char short_buf[32];
  std::snprintf(short_buf, sizeof short_buf, "%g", v);
  return std::strtod(short_buf, nullptr) == v ? short_buf : buf;
}

/// The value as a message shows it: its kind, and its text when it is a scalar.
std::string describe(const yaml::Node& v) {
  std::string out = to_string(v.kind);
  if (v.is_scalar() && v.kind != yaml::NodeKind::null) out += " " + util::quote(v.text);
  return out;
}

std::size_t utf8_length(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

/// An integer value, also for a number with no fraction: YAML `2.0` or `1e3` reaches the API
/// server as JSON `2` or `1000` (sigs.k8s.io/yaml), which decodes as an integer.
bool integral_value(const yaml::Node& v, std::int64_t& out) {
  if (v.kind == yaml::NodeKind::integer) {
    out = v.integer;
    return !v.int_overflow;
  }
  if (v.kind != yaml::NodeKind::number || !std::isfinite(v.number) || std::trunc(v.number) != v.number ||
      std::fabs(v.number) >= 9.2e18) {
    return false;
  }
  out = static_cast<std::int64_t>(v.number);
  return true;
}

bool is_integer_like(const yaml::Node& v) {
  std::int64_t ignored = 0;
  return v.kind == yaml::NodeKind::integer || integral_value(v, ignored);
}

bool scalar_equals(const yaml::Node& v, const SchemaScalar& s) {
  if (v.kind == yaml::NodeKind::integer && s.kind == yaml::NodeKind::integer) {
    return (v.int_overflow ? v.text : std::to_string(v.integer)) == s.text;
  }
  if ((v.kind == yaml::NodeKind::integer || v.kind == yaml::NodeKind::number) &&
      (s.kind == yaml::NodeKind::integer || s.kind == yaml::NodeKind::number)) {
    const double a = v.kind == yaml::NodeKind::integer ? static_cast<double>(v.integer) : v.number;
    return a == std::strtod(s.text.c_str(), nullptr);
  }
  if (v.kind != s.kind) return false;
  if (v.kind == yaml::NodeKind::boolean) return (v.boolean ? "true" : "false") == s.text;
  return v.text == s.text;
}

/// A list-map key or set item, canonical so that equal values compare equal.
std::string canonical(const yaml::Node& v) {
  switch (v.kind) {
    case yaml::NodeKind::null:
      return "null";
    case yaml::NodeKind::boolean:
      return v.boolean ? "true" : "false";
    case yaml::NodeKind::integer:
      return v.int_overflow ? v.text : std::to_string(v.integer);
    case yaml::NodeKind::number:
      return format_number(v.number);
    case yaml::NodeKind::string:
      return "\"" + v.text + "\"";
    default:
      break;
  }
  std::string out = v.is_seq() ? "[" : "{";
  for (std::size_t i = 0; i < v.items.size(); ++i) {
    if (v.is_map()) out += "\"" + v.keys[i] + "\":";
    out += canonical(v.items[i]) + ",";
  }
  return out + (v.is_seq() ? "]" : "}");
}

std::string quantity_hint(const std::string& text) {
  for (std::string_view unit : {"iB", "B"}) {
    if (!util::ends_with(text, unit)) continue;
    const std::string stem = text.substr(0, text.size() - unit.size());
    if (stem.size() < 2 || std::string_view("kKMGTPE").find(stem.back()) == std::string_view::npos) continue;
    const std::string number = stem.substr(0, stem.size() - 1);
    const char prefix = stem.back() == 'k' ? 'K' : stem.back();
    const std::string decimal = number + (prefix == 'K' ? 'k' : prefix);
    if (!model::k8s::is_valid_quantity(decimal)) continue;
    return "quantities have no 'B': did you mean " + util::quote(number + prefix + "i") + " (binary) or " +
           util::quote(decimal) + " (decimal)?";
  }
  return "use a Kubernetes quantity such as '16Gi', '500m' or '2'";
}

class StructuralValidator {
 public:
  StructuralValidator(const yaml::Document& doc, const StructuralOptions& opts)
      : m_opts(opts), m_sink(doc, k_max_findings) {}

  Diagnostics run(const StructuralSchema& schema) {
    const yaml::Node& root = m_sink.doc().root;
    check(root, schema, "", true);
    m_cel.finish();
    return m_sink.take();
  }

 private:
  /// `key` is where the value's key is: a finding about a whole list or mapping points there (the
  /// field, `env:`), not at its first item.
  void check(const yaml::Node& v, const StructuralSchema& s, const std::string& path,
             bool resource_root = false, yaml::Position key = {}) {
    if (m_sink.full()) return;
    m_where = key.line != 0 && !v.is_scalar() ? key : v.pos;
    if (v.kind == yaml::NodeKind::null) {
      if (s.nullable || (s.type == SchemaType::any && !s.int_or_string)) return;
      return m_sink.error(v.pos, path, "schema.type",
                          std::string("expected ") + expected_name(s) + ", got null");
    }
    if (!check_type(v, s, path)) return;
    if (!s.enum_values.empty()) check_enum(v, s, path);
    if (!s.validations.empty()) m_cel.check(v, s, path, resource_root || s.embedded_resource);
    switch (v.kind) {
      case yaml::NodeKind::string:
        check_string(v, s, path);
        break;
      case yaml::NodeKind::integer:
      case yaml::NodeKind::number:
        check_number(v, s, path);
        break;
      case yaml::NodeKind::mapping:
        check_object(v, s, path, resource_root || s.embedded_resource);
        break;
      case yaml::NodeKind::sequence:
        check_array(v, s, path);
        break;
      default:
        break;
    }
  }

  static const char* expected_name(const StructuralSchema& s) {
    return s.int_or_string ? "integer or string" : to_string(s.type);
  }

  /// False (after a finding) when the value has the wrong type: nothing below it is checked.
  bool check_type(const yaml::Node& v, const StructuralSchema& s, const std::string& path) {
    bool ok = true;
    if (s.int_or_string) {
      ok = is_integer_like(v) || v.kind == yaml::NodeKind::string;
    } else {
      switch (s.type) {
        case SchemaType::any:
          ok = true;
          break;
        case SchemaType::object:
          ok = v.is_map();
          break;
        case SchemaType::array:
          ok = v.is_seq();
          break;
        case SchemaType::string:
          ok = v.is_string();
          break;
        case SchemaType::integer:
          ok = is_integer_like(v);
          break;
        case SchemaType::number:
          ok = v.kind == yaml::NodeKind::integer || v.kind == yaml::NodeKind::number;
          break;
        case SchemaType::boolean:
          ok = v.kind == yaml::NodeKind::boolean;
          break;
      }
    }
    if (ok && v.kind == yaml::NodeKind::integer && v.int_overflow) {
      m_sink.error(v.pos, path, "schema.format",
                   "integer " + util::quote(v.text) + " is out of range for int64");
      return false;
    }
    if (ok) return true;
    std::string hint;
    if ((s.type == SchemaType::string || s.int_or_string) && v.is_scalar())
      hint = "quote it: \"" + v.text + "\"";
    m_sink.error(m_where, path, "schema.type",
                 std::string("expected ") + expected_name(s) + ", got " + describe(v), hint);
    return false;
  }

  void check_enum(const yaml::Node& v, const StructuralSchema& s, const std::string& path) {
    for (const auto& e : s.enum_values) {
      if (scalar_equals(v, e)) return;
    }
    std::vector<std::string> names;
    std::string list;
    for (const auto& e : s.enum_values) {
      names.push_back(e.text);
      list += (list.empty() ? "" : ", ") + util::quote(e.text);
    }
    const auto guess = v.is_scalar() ? util::closest_match(v.text, names) : std::nullopt;
    m_sink.error(v.pos, path, "schema.enum",
                 "unsupported value " + (v.is_scalar() ? util::quote(v.text) : describe(v)) +
                     ": supported values: " + list,
                 guess ? "did you mean " + util::quote(*guess) + "?" : std::string());
  }

  void check_string(const yaml::Node& v, const StructuralSchema& s, const std::string& path) {
    const auto quoted = [&v] { return util::quote(v.text); };  // only when a finding needs it
    if (s.compiled_pattern) {
      switch (match_pattern(*s.compiled_pattern, v.text)) {
        case PatternResult::match:
          break;
        case PatternResult::no_match:
          if (is_quantity_pattern(s.pattern)) {
            m_sink.error(v.pos, path, "schema.quantity", "invalid quantity " + quoted(),
                         quantity_hint(v.text));
          } else {
            m_sink.error(v.pos, path, "schema.pattern",
                         "invalid value " + quoted() + ": should match " + util::quote(s.pattern, 200));
          }
          break;
        case PatternResult::too_long:
          m_sink.error(v.pos, path, "schema.pattern",
                       "value too long to check against pattern " + util::quote(s.pattern, 200) + " (" +
                           std::to_string(v.text.size()) + " characters)");
          break;
        case PatternResult::bad_pattern:
          m_sink.add(Severity::warning, v.pos, path, "schema.pattern",
                     "pattern " + util::quote(s.pattern, 200) +
                         " in the schema cannot be compiled: value not checked");
          break;
      }
    }
    if (s.min_length || s.max_length) {
      const std::size_t n = utf8_length(v.text);
      if (s.min_length && n < *s.min_length) {
        m_sink.error(v.pos, path, "schema.min-length",
                     "invalid value " + quoted() + ": should be at least " + std::to_string(*s.min_length) +
                         " chars long");
      }
      if (s.max_length && n > *s.max_length) {
        m_sink.error(v.pos, path, "schema.max-length",
                     "too long: may not be longer than " + std::to_string(*s.max_length) +
                         " characters, got " + std::to_string(n));
      }
    }
  }

  void check_number(const yaml::Node& v, const StructuralSchema& s, const std::string& path) {
    const double x = v.kind == yaml::NodeKind::integer ? static_cast<double>(v.integer) : v.number;
    const auto quoted = [&v] { return util::quote(v.text); };  // only when a finding needs it
    std::int64_t i = 0;
    if (s.format == "int32" && integral_value(v, i) &&
        (i < std::numeric_limits<std::int32_t>::min() || i > std::numeric_limits<std::int32_t>::max())) {
      m_sink.error(v.pos, path, "schema.format", "integer " + quoted() + " is out of range for int32");
    }
    if (s.minimum && (s.exclusive_minimum ? x <= *s.minimum : x < *s.minimum)) {
      m_sink.error(v.pos, path, "schema.minimum",
                   "invalid value " + quoted() + ": should be greater than " +
                       (s.exclusive_minimum ? "" : "or equal to ") + format_number(*s.minimum));
    }
    if (s.maximum && (s.exclusive_maximum ? x >= *s.maximum : x > *s.maximum)) {
      m_sink.error(v.pos, path, "schema.maximum",
                   "invalid value " + quoted() + ": should be less than " +
                       (s.exclusive_maximum ? "" : "or equal to ") + format_number(*s.maximum));
    }
  }

  void check_object(const yaml::Node& v, const StructuralSchema& s, const std::string& path, bool resource) {
    const yaml::Position where = m_where;  // the recursion below moves m_where
    resource = resource && !(m_opts.metadata_from_schema && path.empty());
    if (resource) check_resource_header(v, path);
    for (std::size_t i = 0; i < v.keys.size() && !m_sink.full(); ++i) {
      const std::string& key = v.keys[i];
      const yaml::Node& value = v.items[i];
      const std::string at = child_path(path, key);
      if (resource && key == "metadata") {
        check_object_meta(value, at, {m_opts.unknown_fields_are_errors, path.empty()}, m_sink);
        continue;
      }
      const StructuralSchema* p = s.property(key);
      if (p == nullptr) p = s.additional_properties;
      if (p != nullptr && value.kind == yaml::NodeKind::null && !p->nullable &&
          !(p->type == SchemaType::any && !p->int_or_string)) {
        // The API server prunes nulls of fields that are not nullable before it validates.
        m_sink.add(Severity::warning, value.pos, at, "schema.null",
                   "null value is dropped: the field is not nullable", "remove the field or give it a value");
        continue;
      }
      if (p != nullptr) {
        check(value, *p, at, false, i < v.key_positions.size() ? v.key_positions[i] : yaml::Position{});
      } else if (!s.additional_properties_allowed && !s.preserve_unknown_fields &&
                 s.type != SchemaType::any) {
        report_unknown(v, i, s, at);
      }
    }
    for (const auto& r : s.required) {
      const yaml::Node* present = v.find(r);
      if (present == nullptr || (present->kind == yaml::NodeKind::null && !is_nullable(s, r))) {
        m_sink.error(where, child_path(path, r), "schema.required",
                     "missing required field " + util::quote(r));
      }
    }
    const std::size_t n = v.keys.size();
    if (s.min_properties && n < *s.min_properties) {
      m_sink.error(where, path, "schema.min-properties",
                   "should have at least " + std::to_string(*s.min_properties) + " properties, got " +
                       std::to_string(n));
    }
    if (s.max_properties && n > *s.max_properties) {
      m_sink.error(where, path, "schema.max-properties",
                   "should have at most " + std::to_string(*s.max_properties) + " properties, got " +
                       std::to_string(n));
    }
  }

  static bool is_nullable(const StructuralSchema& s, const std::string& key) {
    const StructuralSchema* p = s.property(key);
    return p != nullptr && p->nullable;
  }

  void report_unknown(const yaml::Node& v, std::size_t i, const StructuralSchema& s, const std::string& at) {
    const std::string& key = v.keys[i];
    const auto guess = util::closest_match(key, s.property_names());
    const yaml::Position pos = i < v.key_positions.size() ? v.key_positions[i] : v.pos;
    m_sink.add(m_opts.unknown_fields_are_errors ? Severity::error : Severity::warning, pos, at,
               "schema.unknown-field", "unknown field " + util::quote(key),
               guess ? "did you mean " + util::quote(*guess) + "?" : std::string());
  }

  /// An object that is a Kubernetes resource (the document, or an embedded resource) needs
  /// apiVersion and kind; its metadata is checked as ObjectMeta.
  void check_resource_header(const yaml::Node& v, const std::string& path) {
    for (const char* field : {"apiVersion", "kind"}) {
      const yaml::Node* f = v.find(field);
      if (f == nullptr || f->kind == yaml::NodeKind::null || (f->is_string() && f->text.empty())) {
        m_sink.error(v.pos, child_path(path, field), "schema.required",
                     "missing required field " + util::quote(field));
      }
    }
    if (v.find("metadata") == nullptr && path.empty()) {
      m_sink.error(v.pos, child_path(path, "metadata.name"), "metadata.name",
                   "name or generateName is required");
    }
  }

  void check_array(const yaml::Node& v, const StructuralSchema& s, const std::string& path) {
    const std::size_t n = v.items.size();
    if (s.min_items && n < *s.min_items) {
      m_sink.error(
          m_where, path, "schema.min-items",
          "should have at least " + std::to_string(*s.min_items) + " items, got " + std::to_string(n));
    }
    if (s.max_items && n > *s.max_items) {
      m_sink.error(
          m_where, path, "schema.max-items",
          "should have at most " + std::to_string(*s.max_items) + " items, got " + std::to_string(n));
    }
    if (s.items != nullptr) {
      for (std::size_t i = 0; i < n && !m_sink.full(); ++i) {
        check(v.items[i], *s.items, path + "[" + std::to_string(i) + "]");
      }
    }
    if (s.list_type == ListType::map && !s.list_map_keys.empty()) check_list_map(v, s, path);
    if (s.list_type == ListType::set) check_set(v, path);
  }

  void check_list_map(const yaml::Node& v, const StructuralSchema& s, const std::string& path) {
    std::unordered_map<std::string, std::size_t> seen;  // key tuple -> first index (hash: lists can be long)
    // The key fields' values: canonical ones (`shown` false) for the tuple, or as a finding shows them.
    const auto key_values = [&s](const yaml::Node& item, bool shown) {
      std::string out;
      for (const auto& k : s.list_map_keys) {
        const yaml::Node* kv = item.find(k);
        const StructuralSchema* ks = s.items != nullptr ? s.items->property(k) : nullptr;
        std::string text;
        if (kv != nullptr && kv->kind != yaml::NodeKind::null) {
          if (shown)
            text = kv->kind == yaml::NodeKind::string ? util::quote(kv->text) : kv->text;
          else
            text = canonical(*kv);
        } else if (ks != nullptr && ks->default_value) {  // e.g. protocol defaults to TCP
          const auto& d = *ks->default_value;
          if (shown)
            text = d.kind == yaml::NodeKind::string ? util::quote(d.text) : d.text;
          else
            text = d.kind == yaml::NodeKind::string ? "\"" + d.text + "\"" : d.text;
        } else {
          text = "null";
        }
        if (shown) {
          out += (out.empty() ? "" : ", ") + k + "=" + text;
        } else {
          out += text;
          out += '\x1f';
        }
      }
      return out;
    };
    for (std::size_t i = 0; i < v.items.size(); ++i) {
      const yaml::Node& item = v.items[i];
      if (!item.is_map()) continue;
      const auto [it, first] = seen.try_emplace(key_values(item, false), i);
      if (first) continue;
      m_sink.error(item.pos, path + "[" + std::to_string(i) + "]", "schema.duplicate-key",
                   "duplicate entry with " + key_values(item, true) + ": the same key as " + path + "[" +
                       std::to_string(it->second) + "] at line " +
                       std::to_string(v.items[it->second].pos.line));
    }
  }

  void check_set(const yaml::Node& v, const std::string& path) {
    std::unordered_map<std::string, std::size_t> seen;
    for (std::size_t i = 0; i < v.items.size(); ++i) {
      const auto [it, first] = seen.try_emplace(canonical(v.items[i]), i);
      if (first) continue;
      m_sink.error(v.items[i].pos, path + "[" + std::to_string(i) + "]", "schema.duplicate-item",
                   "duplicate item " +
                       (v.items[i].is_scalar() ? util::quote(v.items[i].text) : describe(v.items[i])) +
                       ": the same as " + path + "[" + std::to_string(it->second) + "]");
    }
  }

  const StructuralOptions& m_opts;
  FindingSink m_sink;
  CelValidator m_cel{m_sink, m_opts};
  yaml::Position m_where;  ///< where a finding about the value being checked points
};

}  // namespace

Diagnostics validate_structure(const yaml::Document& doc, const StructuralSchema& schema,
                               const StructuralOptions& opts) {
  return StructuralValidator(doc, opts).run(schema);
}

}  // namespace kpt::schema
