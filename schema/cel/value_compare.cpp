#include "schema/cel/value.hpp"

#include <algorithm>
#include <cmath>
#include <string>

// Ordering and equality of values, and the key order behind Map's index.

namespace kpt::cel {
namespace {

int sign(double d) { return d < 0 ? -1 : (d > 0 ? 1 : 0); }

/// Orders an integer against a double exactly (no rounding of the integer to double).
int compare_int_double(std::int64_t i, double d) {
  if (d >= k_two_63) return -1;
  if (d < -k_two_63) return 1;
  const double whole = std::trunc(d);
  const auto w = static_cast<std::int64_t>(whole);
  if (i != w) return i < w ? -1 : 1;
  return -sign(d - whole);
}

int compare_uint_double(std::uint64_t u, double d) {
  if (d >= k_two_64) return -1;
  if (d < 0) return 1;
  const double whole = std::trunc(d);
  const auto w = static_cast<std::uint64_t>(whole);
  if (u != w) return u < w ? -1 : 1;
  return -sign(d - whole);
}

int compare_int_uint(std::int64_t i, std::uint64_t u) {
  if (i < 0) return -1;
  const auto ui = static_cast<std::uint64_t>(i);
  return ui < u ? -1 : (ui > u ? 1 : 0);
}

bool is_number(Kind k) { return k == Kind::int64 || k == Kind::uint64 || k == Kind::double_; }

template <class T>
int three_way(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

/// Orders two numbers of any numeric kinds; nothing when a double is NaN.
std::optional<int> compare_numbers(const Value& a, const Value& b) {
  const Kind ka = a.kind();
  const Kind kb = b.kind();
  if ((ka == Kind::double_ && std::isnan(a.as_double())) ||
      (kb == Kind::double_ && std::isnan(b.as_double()))) {
    return std::nullopt;
  }
  if (ka == kb) {
    if (ka == Kind::int64) return three_way(a.as_int(), b.as_int());
    if (ka == Kind::uint64) return three_way(a.as_uint(), b.as_uint());
    return three_way(a.as_double(), b.as_double());
  }
  if (ka == Kind::int64 && kb == Kind::uint64) return compare_int_uint(a.as_int(), b.as_uint());
  if (ka == Kind::uint64 && kb == Kind::int64) return -compare_int_uint(b.as_int(), a.as_uint());
  if (ka == Kind::int64) return compare_int_double(a.as_int(), b.as_double());
  if (ka == Kind::uint64) return compare_uint_double(a.as_uint(), b.as_double());
  if (kb == Kind::int64) return -compare_int_double(b.as_int(), a.as_double());
  return -compare_uint_double(b.as_uint(), a.as_double());
}

/// The order of map keys in the sorted index: bools, then numbers, then strings.
int key_class(Kind k) { return k == Kind::boolean ? 0 : (k == Kind::string ? 2 : 1); }

int compare_keys(const Value& a, const Value& b) {
  const int ca = key_class(a.kind());
  const int cb = key_class(b.kind());
  if (ca != cb) return ca < cb ? -1 : 1;
  if (ca == 0) return three_way(a.as_bool(), b.as_bool());
  if (ca == 2) return three_way(a.as_string(), b.as_string());
  return compare_numbers(a, b).value_or(1);
}

std::optional<bool> list_equals(const std::vector<Value>& a, const std::vector<Value>& b,
                                std::uint64_t& steps) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto same = equals(a[i], b[i], steps);
    if (same != true) return same;
  }
  return true;
}

std::optional<bool> map_equals(const Map& a, const Map& b, std::uint64_t& steps) {
  if (a.size() != b.size()) return false;
  for (const auto& [key, value] : a.entries()) {
    const Value* other = b.find(key);
    if (other == nullptr) return false;
    const auto same = equals(value, *other, steps);
    if (same != true) return same;
  }
  return true;
}

}  // namespace

const Value* Map::find(const Value& key) const {
  if (!is_key_kind(key.kind()) && key.kind() != Kind::double_) return nullptr;
  if (m_index.empty()) {
    for (const auto& entry : m_entries) {
      if (compare_keys(entry.first, key) == 0) return &entry.second;
    }
    return nullptr;
  }
  const auto it = std::lower_bound(
      m_index.begin(), m_index.end(), key,
      [this](std::uint32_t pos, const Value& k) { return compare_keys(m_entries[pos].first, k) < 0; });
  if (it == m_index.end() || compare_keys(m_entries[*it].first, key) != 0) return nullptr;
  return &m_entries[*it].second;
}

const Value* Map::find(std::string_view key) const {
  if (m_index.empty()) {
    for (const auto& entry : m_entries) {
      if (entry.first.kind() == Kind::string && entry.first.as_string() == key) return &entry.second;
    }
    return nullptr;
  }
  // Strings sort after every other key kind, so a non-string entry orders before any string.
  const auto less = [this](std::uint32_t pos, std::string_view k) {
    const Value& entry_key = m_entries[pos].first;
    return entry_key.kind() != Kind::string || entry_key.as_string() < k;
  };
  const auto it = std::lower_bound(m_index.begin(), m_index.end(), key, less);
  if (it == m_index.end() || m_entries[*it].first.as_string() != key) return nullptr;
  return &m_entries[*it].second;
}

Value MapBuilder::build() && {
  constexpr std::size_t k_linear_lookup_max = 8;  // below this a scan beats the index
  auto& entries = m_map.m_entries;
  std::vector<std::uint32_t> index(entries.size());
  for (std::uint32_t i = 0; i < index.size(); ++i) {
    if (!is_key_kind(entries[i].first.kind())) {
      return Value::error(std::string("unsupported key type: ") + kind_name(entries[i].first.kind()));
    }
    index[i] = i;
  }
  std::stable_sort(index.begin(), index.end(), [&](std::uint32_t a, std::uint32_t b) {
    return compare_keys(entries[a].first, entries[b].first) < 0;
  });
  for (std::size_t i = 1; i < index.size(); ++i) {
    if (compare_keys(entries[index[i - 1]].first, entries[index[i]].first) == 0) {
      return Value::error("repeated key in map: " + display(entries[index[i]].first));
    }
  }
  if (entries.size() > k_linear_lookup_max) m_map.m_index = std::move(index);
  Value out;
  out.m_kind = Kind::map;
  out.m_heap = std::make_shared<const Map>(std::move(m_map));
  return out;
}

bool is_key_kind(Kind kind) {
  return kind == Kind::boolean || kind == Kind::int64 || kind == Kind::uint64 || kind == Kind::string;
}

std::optional<bool> equals(const Value& a, const Value& b, std::uint64_t& steps) {
  ++steps;
  if (a.kind() == Kind::opaque || b.kind() == Kind::opaque) return std::nullopt;
  if (is_number(a.kind()) && is_number(b.kind())) return compare_numbers(a, b) == 0;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Kind::null:
      return true;
    case Kind::boolean:
      return a.as_bool() == b.as_bool();
    case Kind::string:
      steps += a.as_string().size() / 16;
      return a.as_string() == b.as_string();
    case Kind::type:
      return a.as_string() == b.as_string();
    case Kind::list:
      return list_equals(a.as_list(), b.as_list(), steps);
    case Kind::map:
      return map_equals(a.as_map(), b.as_map(), steps);
    default:
      return false;
  }
}

std::optional<int> compare(const Value& a, const Value& b) {
  if (is_number(a.kind()) && is_number(b.kind())) return compare_numbers(a, b);
  if (a.kind() != b.kind()) return std::nullopt;
  if (a.kind() == Kind::boolean) return three_way(a.as_bool(), b.as_bool());
  if (a.kind() == Kind::string) return three_way(a.as_string(), b.as_string());
  return std::nullopt;
}

}  // namespace kpt::cel
