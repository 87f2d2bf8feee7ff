#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kpt::cel {

/// The functions this evaluator implements: CEL's standard ones that CRD rules use, and the
/// cheap parts of the Kubernetes string and list libraries (k8s.io/apiserver/pkg/cel/library
/// lists.go; cel-go ext/strings.go, which Kubernetes enables).
enum class Builtin : std::uint8_t {
  none,
  size,           ///< size(x), x.size(): strings (code points), lists, maps
  matches,        ///< s.matches(re), matches(s, re): RE2 search
  starts_with,    ///< s.startsWith(p)
  ends_with,      ///< s.endsWith(p)
  contains,       ///< s.contains(p)
  to_int,         ///< int(x)
  to_uint,        ///< uint(x)
  to_double,      ///< double(x)
  to_string,      ///< string(x)
  to_bool,        ///< bool(x)
  type_of,        ///< type(x)
  dyn,            ///< dyn(x): the value itself
  char_at,        ///< s.charAt(i)
  index_of,       ///< s.indexOf(t[, from]), list.indexOf(x)
  last_index_of,  ///< s.lastIndexOf(t[, from]), list.lastIndexOf(x)
  lower_ascii,    ///< s.lowerAscii()
  upper_ascii,    ///< s.upperAscii()
  replace,        ///< s.replace(from, to[, n])
  split,          ///< s.split(sep[, n])
  substring,      ///< s.substring(start[, end])
  trim,           ///< s.trim(): Unicode white space at both ends
  join,           ///< list.join([sep])
  is_sorted,      ///< list.isSorted()
  sum,            ///< list.sum()
  min,            ///< list.min()
  max,            ///< list.max()
};

/// The builtin called `name` with `args` arguments (not counting a member call's receiver),
/// or nothing when this evaluator has no such function or overload.
std::optional<Builtin> resolve_builtin(std::string_view name, bool member, std::size_t args);

/// True when some overload of `name` exists (in either call style or another arity).
bool is_builtin_name(std::string_view name);

/// The function's CEL name, as error messages show it.
std::string_view builtin_name(Builtin fn);

}  // namespace kpt::cel
