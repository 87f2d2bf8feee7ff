#pragma once

#include "schema/cel/cel.hpp"
#include "schema/structural_schema.hpp"
#include "yaml/node.hpp"

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kpt::schema {

enum class SchemaType : std::uint8_t { any, object, array, string, integer, number, boolean };
enum class ListType : std::uint8_t { none, atomic, set, map };
enum class MapType : std::uint8_t { none, atomic, granular };

const char* to_string(SchemaType type);

/// A scalar from the schema (enum member, default): its JSON kind and canonical text
/// (strings: the value; integers: decimal; booleans: "true"/"false"; numbers: as written).
struct SchemaScalar {
  yaml::NodeKind kind = yaml::NodeKind::null;
  std::string text;
  friend bool operator==(const SchemaScalar&, const SchemaScalar&) = default;
};

/// An x-kubernetes-validations entry, its rule compiled once (when the schema is compiled or
/// loaded). messageExpression is kept but not evaluated: findings use `message`.
struct CelRule {
  std::string rule;
  std::string message;
  std::string message_expression;
  std::string reason;      ///< FieldValueInvalid, FieldValueForbidden, ... (the API server's error type)
  std::string field_path;  ///< where a failure is reported, relative to the node (".spec.replicas")
  bool optional_old_self = false;
  std::shared_ptr<const cel::Program> program;
};

/// Compiles `rule.rule` into `rule.program`.
void compile_cel_rule(CelRule& rule);

/// A `pattern` prepared once: the Kubernetes quantity pattern runs through the hand-written
/// parser, any other through RE2, behind schema/cel/regex.hpp (nullptr when the pattern does
/// not compile).
struct CompiledPattern;

struct SchemaProperty {
  std::string name;
  const StructuralSchema* schema = nullptr;
};

struct StructuralSchema {
  SchemaType type = SchemaType::any;
  std::string format;
  std::vector<SchemaProperty> properties;  ///< sorted by name, for binary search
  std::vector<std::string> required;
  const StructuralSchema* items = nullptr;
  /// additionalProperties: a schema, or `true`/`false`; absent means no extra keys (with properties)
  const StructuralSchema* additional_properties = nullptr;
  bool additional_properties_allowed = false;  ///< additionalProperties: true
  std::vector<SchemaScalar> enum_values;
  std::optional<SchemaScalar> default_value;  ///< scalar defaults only (list-map keys such as protocol)
  std::string pattern;
  std::shared_ptr<const CompiledPattern> compiled_pattern;
  std::optional<double> minimum;
  std::optional<double> maximum;
  bool exclusive_minimum = false;
  bool exclusive_maximum = false;
  std::optional<std::uint64_t> min_length;
  std::optional<std::uint64_t> max_length;
  std::optional<std::uint64_t> min_items;
  std::optional<std::uint64_t> max_items;
  std::optional<std::uint64_t> min_properties;
  std::optional<std::uint64_t> max_properties;
  bool nullable = false;
  bool int_or_string = false;
  bool preserve_unknown_fields = false;
  bool embedded_resource = false;
  ListType list_type = ListType::none;
  std::vector<std::string> list_map_keys;
  MapType map_type = MapType::none;
  std::vector<CelRule> validations;

  /// The property schema for `name`, or nullptr.
  [[nodiscard]] const StructuralSchema* property(std::string_view name) const;
  /// Property names, for "did you mean" hints.
  [[nodiscard]] std::vector<std::string> property_names() const;
};

/// Prepares `schema.compiled_pattern` from `schema.pattern` (once, at compile or load time).
void compile_pattern(StructuralSchema& schema);

/// True when `pattern` is the Kubernetes resource.Quantity pattern.
bool is_quantity_pattern(std::string_view pattern);

enum class PatternResult : std::uint8_t { match, no_match, too_long, bad_pattern };

/// Matches a string against a compiled pattern; values over 4096 characters are not matched, which
/// keeps one value's cost (characters x program size) bounded.
PatternResult match_pattern(const CompiledPattern& pattern, std::string_view value);

/// One kind at one group/version.
struct SchemaEntry {
  std::string group;
  std::string version;
  std::string kind;
  const StructuralSchema* root = nullptr;
};

/// Storage behind SchemaSet. Compiling appends to a deque (pointers stay put while it grows);
/// loading knows the count up front and fills one vector (one allocation, not one per node).
/// Only one of the two is used; children always come after their parent.
struct SchemaSet::Impl {
  std::deque<StructuralSchema> nodes;
  std::vector<StructuralSchema> loaded_nodes;
  std::vector<SchemaEntry> entries;
  std::string origin;
};

}  // namespace kpt::schema
