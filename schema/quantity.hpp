#pragma once

#include <optional>
#include <string_view>

namespace kpt::schema {

/// True when `text` matches the Kubernetes resource.Quantity pattern that CRDs carry:
/// `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`.
/// Hand-written and linear: std::regex overflows the stack on long values.
bool is_valid_quantity(std::string_view text);

/// The value of a valid quantity in base units ("1Gi" -> 1073741824, "100m" -> 0.1), or nothing.
std::optional<double> quantity_value(std::string_view text);

}  // namespace kpt::schema
