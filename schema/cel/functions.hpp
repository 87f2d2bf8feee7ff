#pragma once

// Internal to the evaluator: the builtin functions. Arguments are never errors; a member call's
// receiver is args[0], so x.size() and size(x) look the same here.

#include "schema/cel/builtins.hpp"
#include "schema/cel/cost.hpp"
#include "schema/cel/value.hpp"

#include <initializer_list>
#include <vector>

namespace kpt::cel {

namespace regex {
class PatternCache;
class Regex;
}  // namespace regex

/// True when the arguments have exactly these kinds, in order.
bool kinds_are(const std::vector<Value>& args, std::initializer_list<Kind> kinds);

/// Calls `fn`. `literal_regex` is the pattern of matches() when the rule spells it as a literal
/// (compiled once by the checker); otherwise matches() compiles args[1] through
/// `runtime_patterns` (the rule's cache, or nullptr: compiled here).
Value call_builtin(Builtin fn, const std::vector<Value>& args, const regex::Regex* literal_regex,
                   regex::PatternCache* runtime_patterns, CostMeter& cost);

/// int(), uint(), double(), string(), bool() with cel-go's range and parse errors.
Value convert(Builtin fn, const Value& v, CostMeter& cost);

/// The Kubernetes string library: charAt, indexOf, lastIndexOf, lowerAscii, upperAscii,
/// replace, split, substring, trim, join (as cel-go ext/strings.go defines them).
Value call_string_function(Builtin fn, const std::vector<Value>& args, CostMeter& cost);

}  // namespace kpt::cel
