#include "schema/structural_schema.hpp"
#include "schema/structural_schema_impl.hpp"

#include <cstring>
#include <unordered_map>

// Binary form of a SchemaSet: "KPTS", format version, an interned string table, then the
// nodes in creation order (children always after their parent, so links point forward and
// a damaged file cannot make a cycle), then the entries and the origin.

namespace kpt::schema {
namespace {

constexpr std::string_view k_magic = "KPTS";
constexpr std::uint32_t k_format_version = 2;  // 2: x-kubernetes-validations keep every field

enum Flag : std::uint32_t {
  f_nullable = 1u << 0,
  f_int_or_string = 1u << 1,
  f_preserve = 1u << 2,
  f_embedded = 1u << 3,
  f_excl_min = 1u << 4,
  f_excl_max = 1u << 5,
  f_additional_allowed = 1u << 6,
  f_min = 1u << 7,
  f_max = 1u << 8,
  f_min_length = 1u << 9,
  f_max_length = 1u << 10,
  f_min_items = 1u << 11,
  f_max_items = 1u << 12,
  f_min_props = 1u << 13,
  f_max_props = 1u << 14,
  f_default = 1u << 15,
};

class Writer {
 public:
  void varint(std::uint64_t v) {
    while (v >= 0x80) {
      m_out.push_back(static_cast<char>((v & 0x7F) | 0x80));
      v >>= 7;
    }
    m_out.push_back(static_cast<char>(v));
  }
  void byte(std::uint8_t b) { m_out.push_back(static_cast<char>(b)); }
  void real(double d) {
    char buf[sizeof d];
    std::memcpy(buf, &d, sizeof d);
    m_out.append(buf, sizeof d);
  }
  void raw(std::string_view s) { m_out.append(s); }
  std::string take() { return std::move(m_out); }

 private:
  std::string m_out;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : m_in(in) {}
  std::uint64_t varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (m_pos >= m_in.size()) return fail();
      const auto b = static_cast<std::uint8_t>(m_in[m_pos++]);
      v |= static_cast<std::uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) return v;
    }
    return fail();
  }
  std::uint8_t byte() {
    return m_pos < m_in.size() ? static_cast<std::uint8_t>(m_in[m_pos++]) : static_cast<std::uint8_t>(fail());
  }
  double real() {
    double d = 0;
    if (m_in.size() - m_pos < sizeof d) return static_cast<double>(fail());
    std::memcpy(&d, m_in.data() + m_pos, sizeof d);
    m_pos += sizeof d;
    return d;
  }
  std::string_view raw(std::size_t n) {
    if (m_in.size() - m_pos < n) return fail(), std::string_view{};
    auto out = m_in.substr(m_pos, n);
    m_pos += n;
    return out;
  }
  [[nodiscard]] bool ok() const { return m_ok; }
  [[nodiscard]] bool at_end() const { return m_pos == m_in.size(); }
  std::uint64_t fail() {
    m_ok = false;
    m_pos = m_in.size();
    return 0;
  }

 private:
  std::string_view m_in;
  std::size_t m_pos = 0;
  bool m_ok = true;
};

class Interner {
 public:
  Interner() { id(""); }
  std::uint32_t id(const std::string& s) {
    auto [it, inserted] = m_ids.try_emplace(s, static_cast<std::uint32_t>(m_list.size()));
    if (inserted) m_list.push_back(s);
    return it->second;
  }
  [[nodiscard]] const std::vector<std::string>& list() const { return m_list; }

 private:
  std::unordered_map<std::string, std::uint32_t> m_ids;
  std::vector<std::string> m_list;
};

std::uint32_t flags_of(const StructuralSchema& s) {
  std::uint32_t f = 0;
  auto set = [&f](bool on, Flag bit) { f |= on ? static_cast<std::uint32_t>(bit) : 0u; };
  set(s.nullable, f_nullable);
  set(s.int_or_string, f_int_or_string);
  set(s.preserve_unknown_fields, f_preserve);
  set(s.embedded_resource, f_embedded);
  set(s.exclusive_minimum, f_excl_min);
  set(s.exclusive_maximum, f_excl_max);
  set(s.additional_properties_allowed, f_additional_allowed);
  set(s.minimum.has_value(), f_min);
  set(s.maximum.has_value(), f_max);
  set(s.min_length.has_value(), f_min_length);
  set(s.max_length.has_value(), f_max_length);
  set(s.min_items.has_value(), f_min_items);
  set(s.max_items.has_value(), f_max_items);
  set(s.min_properties.has_value(), f_min_props);
  set(s.max_properties.has_value(), f_max_props);
  set(s.default_value.has_value(), f_default);
  return f;
}

}  // namespace

std::string SchemaSet::serialize() const {
  std::vector<const StructuralSchema*> nodes;
  for (const auto& n : m_impl->nodes) nodes.push_back(&n);
  for (const auto& n : m_impl->loaded_nodes) nodes.push_back(&n);
  std::unordered_map<const StructuralSchema*, std::uint64_t> index;
  for (std::size_t i = 0; i < nodes.size(); ++i) index.emplace(nodes[i], i + 1);
  auto link = [&index](const StructuralSchema* p) { return p == nullptr ? 0 : index.at(p); };

  Interner strings;
  Writer body;
  body.varint(nodes.size());
  for (const auto* node : nodes) {
    const StructuralSchema& s = *node;
    body.varint(flags_of(s));
    body.byte(static_cast<std::uint8_t>(s.type));
    body.byte(static_cast<std::uint8_t>(s.list_type));
    body.byte(static_cast<std::uint8_t>(s.map_type));
    body.varint(strings.id(s.format));
    body.varint(strings.id(s.pattern));
    body.varint(s.properties.size());
    for (const auto& p : s.properties) {
      body.varint(strings.id(p.name));
      body.varint(link(p.schema));
    }
    body.varint(s.required.size());
    for (const auto& r : s.required) body.varint(strings.id(r));
    body.varint(link(s.items));
    body.varint(link(s.additional_properties));
    body.varint(s.enum_values.size());
    for (const auto& e : s.enum_values) {
      body.byte(static_cast<std::uint8_t>(e.kind));
      body.varint(strings.id(e.text));
    }
    if (s.default_value) {
      body.byte(static_cast<std::uint8_t>(s.default_value->kind));
      body.varint(strings.id(s.default_value->text));
    }
    if (s.minimum) body.real(*s.minimum);
    if (s.maximum) body.real(*s.maximum);
    for (const auto& c :
         {s.min_length, s.max_length, s.min_items, s.max_items, s.min_properties, s.max_properties}) {
      if (c) body.varint(*c);
    }
    body.varint(s.list_map_keys.size());
    for (const auto& k : s.list_map_keys) body.varint(strings.id(k));
    body.varint(s.validations.size());
    for (const auto& v : s.validations) {
      for (const auto* text : {&v.rule, &v.message, &v.message_expression, &v.reason, &v.field_path}) {
        body.varint(strings.id(*text));
      }
      body.byte(v.optional_old_self ? 1 : 0);
    }
  }
  body.varint(m_impl->entries.size());
  for (const auto& e : m_impl->entries) {
    body.varint(strings.id(e.group));
    body.varint(strings.id(e.version));
    body.varint(strings.id(e.kind));
    body.varint(link(e.root));
  }
  body.varint(strings.id(m_impl->origin));

  Writer out;
  out.raw(k_magic);
  out.varint(k_format_version);
  out.varint(strings.list().size());
  for (const auto& s : strings.list()) {
    out.varint(s.size());
    out.raw(s);
  }
  out.raw(body.take());
  return out.take();
}

Expected<SchemaSet> SchemaSet::deserialize(std::string_view bytes) {
  auto corrupt = [](const std::string& why) {
    return make_error(ErrorCode::parse, "compiled schema is damaged: " + why);
  };
  if (bytes.substr(0, k_magic.size()) != k_magic) return corrupt("no 'KPTS' header");
  Reader in(bytes.substr(k_magic.size()));
  const auto version = in.varint();
  if (version != k_format_version) {
    return corrupt("format version " + std::to_string(version) + ", this build reads " +
                   std::to_string(k_format_version));
  }
  const auto string_count = in.varint();
  if (string_count > bytes.size()) return corrupt("string table too large");
  std::vector<std::string_view> strings;
  strings.reserve(string_count);
  for (std::uint64_t i = 0; i < string_count && in.ok(); ++i) strings.push_back(in.raw(in.varint()));
  auto str = [&]() -> std::string {
    const auto id = in.varint();
    return id < strings.size() ? std::string(strings[id]) : (in.fail(), std::string());
  };

  SchemaSet set;
  auto& nodes = set.m_impl->loaded_nodes;
  const auto node_count = in.varint();
  if (!in.ok() || node_count > bytes.size() / 13) return corrupt("node table too large");
  nodes.resize(node_count);
  // Links must point forward, to a later node: that rules out cycles.
  auto link = [&](std::uint64_t self) -> const StructuralSchema* {
    const auto id = in.varint();
    if (id == 0) return nullptr;
    if (id <= self + 1 || id > node_count) return in.fail(), nullptr;
    return &nodes[id - 1];
  };
  for (std::uint64_t i = 0; i < node_count && in.ok(); ++i) {
    StructuralSchema& s = nodes[i];
    const auto f = in.varint();
    const auto type = in.byte();
    const auto list_type = in.byte();
    const auto map_type = in.byte();
    if (type > static_cast<std::uint8_t>(SchemaType::boolean) || list_type > 3 || map_type > 2)
      return corrupt("bad node type");
    s.type = static_cast<SchemaType>(type);
    s.list_type = static_cast<ListType>(list_type);
    s.map_type = static_cast<MapType>(map_type);
    s.format = str();
    s.pattern = str();
    s.properties.resize(in.ok() ? std::min<std::uint64_t>(in.varint(), bytes.size()) : 0);
    for (auto& p : s.properties) {
      p.name = str();
      p.schema = link(i);
      if (p.schema == nullptr) in.fail();
    }
    s.required.resize(std::min<std::uint64_t>(in.varint(), bytes.size()));
    for (auto& r : s.required) r = str();
    s.items = link(i);
    s.additional_properties = link(i);
    s.enum_values.resize(std::min<std::uint64_t>(in.varint(), bytes.size()));
    for (auto& e : s.enum_values) {
      e.kind = static_cast<yaml::NodeKind>(
          std::min<std::uint8_t>(in.byte(), static_cast<std::uint8_t>(yaml::NodeKind::mapping)));
      e.text = str();
    }
    if ((f & f_default) != 0) {
      const auto kind = static_cast<yaml::NodeKind>(
          std::min<std::uint8_t>(in.byte(), static_cast<std::uint8_t>(yaml::NodeKind::mapping)));
      s.default_value = SchemaScalar{kind, str()};
    }
    s.nullable = (f & f_nullable) != 0;
    s.int_or_string = (f & f_int_or_string) != 0;
    s.preserve_unknown_fields = (f & f_preserve) != 0;
    s.embedded_resource = (f & f_embedded) != 0;
    s.exclusive_minimum = (f & f_excl_min) != 0;
    s.exclusive_maximum = (f & f_excl_max) != 0;
    s.additional_properties_allowed = (f & f_additional_allowed) != 0;
    if ((f & f_min) != 0) s.minimum = in.real();
    if ((f & f_max) != 0) s.maximum = in.real();
    for (auto [bit, field] : {std::pair{f_min_length, &s.min_length},
                              {f_max_length, &s.max_length},
                              {f_min_items, &s.min_items},
                              {f_max_items, &s.max_items},
                              {f_min_props, &s.min_properties},
                              {f_max_props, &s.max_properties}}) {
      if ((f & bit) != 0) *field = in.varint();
    }
    s.list_map_keys.resize(std::min<std::uint64_t>(in.varint(), bytes.size()));
    for (auto& k : s.list_map_keys) k = str();
    s.validations.resize(std::min<std::uint64_t>(in.varint(), bytes.size()));
    for (auto& v : s.validations) {
      for (auto* text : {&v.rule, &v.message, &v.message_expression, &v.reason, &v.field_path}) *text = str();
      v.optional_old_self = in.byte() == 1;
      // Bounded: a rule is a string of the table, and compiling refuses one over 10 KiB.
      if (in.ok()) compile_cel_rule(v);
    }
    if (!s.pattern.empty()) compile_pattern(s);
  }
  const auto entry_count = in.ok() ? std::min<std::uint64_t>(in.varint(), bytes.size()) : 0;
  for (std::uint64_t i = 0; i < entry_count && in.ok(); ++i) {
    SchemaEntry e;
    e.group = str();
    e.version = str();
    e.kind = str();
    const auto id = in.varint();
    if (id == 0 || id > node_count) return corrupt("bad entry");
    e.root = &nodes[id - 1];
    set.m_impl->entries.push_back(std::move(e));
  }
  set.m_impl->origin = str();
  if (!in.ok()) return corrupt("truncated or inconsistent data");
  if (!in.at_end()) return corrupt("trailing bytes");
  return set;
}

}  // namespace kpt::schema
