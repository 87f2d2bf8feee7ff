#pragma once

// Internal to the evaluator: CEL's operators on values. Operands are never errors (the
// evaluator propagates those first); results may be.

#include "schema/cel/ast.hpp"
#include "schema/cel/cost.hpp"
#include "schema/cel/value.hpp"

#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

namespace kpt::cel {

/// "no matching overload for '_+_' applied to '(int, string)'"; an "unsupported" error instead
/// when an operand is opaque (a timestamp, ...), whose operations are not modelled.
Value no_overload(std::string_view fn, std::initializer_list<const Value*> args);
Value no_overload(std::string_view fn, const std::vector<Value>& args);
Value no_overload(std::string_view fn, const std::vector<const Value*>& args);

/// The unsupported error for an opaque operand, or nothing.
std::optional<Value> opaque_operand(std::initializer_list<const Value*> args);
/// The unsupported error for the first opaque value in `v` or its elements, or nothing.
std::optional<Value> opaque_within(const Value& v);

/// + - * / % with CEL's overflow and division-by-zero errors; + also concatenates strings and
/// lists.
Value arithmetic(Op op, const Value& a, const Value& b, CostMeter& cost);

/// == != < <= > >=: heterogeneous equality, ordering of numbers (across kinds), strings, bools.
Value relation(Op op, const Value& a, const Value& b, CostMeter& cost);

/// `a in b`: an element of a list, or a key of a map.
Value membership(const Value& a, const Value& b, CostMeter& cost);

/// Unary `-` and `!`.
Value negate(const Value& a);
Value logical_not(const Value& a);

/// The property a Kubernetes-escaped field name selects (k8s.io/apiserver/pkg/cel/escaping.go):
/// __dash__ -, __dot__ ., __slash__ /, __underscores__ __, and __{keyword}__ for a whole name
/// that is a CEL keyword. Nothing when the escapes are malformed.
std::optional<std::string> unescape_property(std::string_view name);

/// `a.field`: a map's value under the key; for a schema object, a Kubernetes-escaped name
/// (`foo__dash__bar`) selects the property it escapes (`foo-bar`).
Value select_field(const Value& target, std::string_view field);
/// has(a.field): whether the key is present.
Value has_field(const Value& target, std::string_view field);
/// `a[i]`, `a['k']`.
Value index_value(const Value& target, const Value& index);

}  // namespace kpt::cel
