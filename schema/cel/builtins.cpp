#include "schema/cel/builtins.hpp"

namespace kpt::cel {
namespace {

enum class Style : std::uint8_t { global, member };

struct Overload {
  std::string_view name;
  Builtin fn;
  Style style;
  std::uint8_t min_args;
  std::uint8_t max_args;
};

constexpr Overload k_overloads[] = {
    {"size", Builtin::size, Style::member, 0, 0},
    {"size", Builtin::size, Style::global, 1, 1},
    {"matches", Builtin::matches, Style::member, 1, 1},
    {"matches", Builtin::matches, Style::global, 2, 2},
    {"startsWith", Builtin::starts_with, Style::member, 1, 1},
    {"endsWith", Builtin::ends_with, Style::member, 1, 1},
    {"contains", Builtin::contains, Style::member, 1, 1},
    {"int", Builtin::to_int, Style::global, 1, 1},
    {"uint", Builtin::to_uint, Style::global, 1, 1},
    {"double", Builtin::to_double, Style::global, 1, 1},
    {"string", Builtin::to_string, Style::global, 1, 1},
    {"bool", Builtin::to_bool, Style::global, 1, 1},
    {"type", Builtin::type_of, Style::global, 1, 1},
    {"dyn", Builtin::dyn, Style::global, 1, 1},
    {"charAt", Builtin::char_at, Style::member, 1, 1},
    {"indexOf", Builtin::index_of, Style::member, 1, 2},
    {"lastIndexOf", Builtin::last_index_of, Style::member, 1, 2},
    {"lowerAscii", Builtin::lower_ascii, Style::member, 0, 0},
    {"upperAscii", Builtin::upper_ascii, Style::member, 0, 0},
    {"replace", Builtin::replace, Style::member, 2, 3},
    {"split", Builtin::split, Style::member, 1, 2},
    {"substring", Builtin::substring, Style::member, 1, 2},
    {"trim", Builtin::trim, Style::member, 0, 0},
    {"join", Builtin::join, Style::member, 0, 1},
    {"isSorted", Builtin::is_sorted, Style::member, 0, 0},
    {"sum", Builtin::sum, Style::member, 0, 0},
    {"min", Builtin::min, Style::member, 0, 0},
    {"max", Builtin::max, Style::member, 0, 0},
};

}  // namespace

std::optional<Builtin> resolve_builtin(std::string_view name, bool member, std::size_t args) {
  const Style style = member ? Style::member : Style::global;
  for (const auto& o : k_overloads) {
    if (o.name == name && o.style == style && args >= o.min_args && args <= o.max_args) return o.fn;
  }
  return std::nullopt;
}

bool is_builtin_name(std::string_view name) {
  for (const auto& o : k_overloads) {
    if (o.name == name) return true;
  }
  return false;
}

std::string_view builtin_name(Builtin fn) {
  for (const auto& o : k_overloads) {
    if (o.fn == fn) return o.name;
  }
  return "unknown";
}

}  // namespace kpt::cel
