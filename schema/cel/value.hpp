#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kpt::cel {

/// 2^63 and 2^64 as doubles: the bounds of int64 and uint64 that a double converts or compares against.
constexpr double k_two_63 = 9223372036854775808.0;
constexpr double k_two_64 = 18446744073709551616.0;

/// The kinds of CEL value this evaluator models. `opaque` stands for a CEL type it does not
/// model (timestamp, duration, bytes, quantity): such a value can be bound, tested with has() and
/// passed around, but any operation on it is "unsupported" rather than a guess.
enum class Kind : std::uint8_t {
  null,
  boolean,
  int64,
  uint64,
  double_,
  string,
  list,
  map,
  type,
  opaque,
  error
};

/// Why an evaluation produced an error value.
enum class ErrorKind : std::uint8_t {
  eval,         ///< a CEL runtime error: no such key, division by zero, no matching overload, ...
  unsupported,  ///< the rule needs something this evaluator does not implement
};

/// The CEL type name of a kind, as type() and error messages spell it ("null_type", "int", ...).
const char* kind_name(Kind kind);

class Map;

/// An immutable CEL value. Strings, lists and maps share their storage, so copies are cheap.
class Value {
 public:
  Value() = default;  ///< null

  static Value null() { return {}; }
  static Value boolean(bool v);
  static Value int64(std::int64_t v);
  static Value uint64(std::uint64_t v);
  static Value from_double(double v);
  static Value string(std::string v);
  static Value list(std::vector<Value> items);
  /// A type value, as type(x) returns and the identifiers `int`, `string`, ... denote.
  static Value type(std::string_view name);
  /// A value of the CEL type `type_name` that this evaluator does not model.
  static Value opaque(std::string_view type_name);
  static Value error(std::string message, ErrorKind kind = ErrorKind::eval);

  [[nodiscard]] Kind kind() const { return m_kind; }
  [[nodiscard]] bool is_error() const { return m_kind == Kind::error; }
  [[nodiscard]] bool as_bool() const { return m_scalar.b; }
  [[nodiscard]] std::int64_t as_int() const { return m_scalar.i; }
  [[nodiscard]] std::uint64_t as_uint() const { return m_scalar.u; }
  [[nodiscard]] double as_double() const { return m_scalar.d; }
  /// The text of a string, the name of a type or opaque value, the message of an error;
  /// empty for other kinds.
  [[nodiscard]] std::string_view as_string() const;
  [[nodiscard]] const std::vector<Value>& as_list() const;
  [[nodiscard]] const Map& as_map() const;
  [[nodiscard]] ErrorKind error_kind() const { return static_cast<ErrorKind>(m_scalar.u); }
  /// The CEL type name of this value (for opaque values: the type it stands for).
  [[nodiscard]] std::string_view type_name() const;

 private:
  friend class MapBuilder;
  union Scalar {
    bool b;
    std::int64_t i;
    std::uint64_t u;
    double d;
  };
  Kind m_kind = Kind::null;
  Scalar m_scalar{.u = 0};
  std::shared_ptr<const void> m_heap;  ///< std::string, std::vector<Value> or Map, by kind
};

/// A CEL map. Keys are bool, int, uint or string values; entries keep insertion order (the order
/// macros iterate in) and lookups go through a sorted index.
class Map {
 public:
  using Entry = std::pair<Value, Value>;

  /// The value under `key`; int, uint and integral double keys find each other (CEL's
  /// heterogeneous key equality).
  [[nodiscard]] const Value* find(const Value& key) const;
  [[nodiscard]] const Value* find(std::string_view key) const;
  [[nodiscard]] std::size_t size() const { return m_entries.size(); }
  [[nodiscard]] const std::vector<Entry>& entries() const { return m_entries; }
  /// True for a schema object (properties): its field names are selected in the Kubernetes
  /// escaped form too (`foo__dash__bar` selects `foo-bar`).
  [[nodiscard]] bool is_object() const { return m_object; }

 private:
  friend class MapBuilder;
  std::vector<Entry> m_entries;
  std::vector<std::uint32_t> m_index;  ///< entry positions sorted by key
  bool m_object = false;
};

/// Builds a map value: `MapBuilder b; b.add("k", v); Value m = std::move(b).build();`. Pass
/// `object = true` for a schema object (properties) and false for a map (additionalProperties):
/// only objects select Kubernetes-escaped field names.
class MapBuilder {
 public:
  explicit MapBuilder(bool object = false) { m_map.m_object = object; }
  void reserve(std::size_t n) { m_map.m_entries.reserve(n); }
  void add(Value key, Value value) { m_map.m_entries.emplace_back(std::move(key), std::move(value)); }
  void add(std::string key, Value value) { add(Value::string(std::move(key)), std::move(value)); }
  /// The map, or an error value when a key is repeated or is not of a key kind.
  [[nodiscard]] Value build() &&;

 private:
  Map m_map;
};

/// CEL's heterogeneous equality: numbers compare by value across int, uint and double; lists
/// and maps element by element; values of different kinds are not equal. `steps` counts the
/// element comparisons made, for the cost budget. Nothing when an opaque value had to be compared
/// (its equality is not modelled). Neither side may be an error.
std::optional<bool> equals(const Value& a, const Value& b, std::uint64_t& steps);

/// The order of two values for `<` and friends: -1, 0 or 1; nothing when they are not ordered
/// (different kinds other than numbers, lists, maps, NaN).
std::optional<int> compare(const Value& a, const Value& b);

/// Whether a value of this kind can be a map key.
bool is_key_kind(Kind kind);

/// The value as error messages show it (cel-go's %v): strings unquoted, lists as [a, b]; cut
/// to 200 bytes and "...".
std::string display(const Value& v);

/// A double as CEL's string() spells it (cel-go formats with Go's %g: the shortest digits that
/// round-trip, in exponent form below 1e-4 and from 1e6: "1e+06", "0.0001", "1.5").
std::string format_double(double v);

}  // namespace kpt::cel
