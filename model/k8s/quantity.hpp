#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string_view>

// Kubernetes resource quantities (k8s.io/apimachinery pkg/api/resource), shared by the CRD
// validator (the pattern), the gang PodGroup sums (base units) and Trainer's process counts
// (Quantity.Value()).
namespace kpt::model::k8s {

/// True when `text` matches the Kubernetes resource.Quantity pattern that CRDs carry:
/// `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`.
/// Hand-written and linear: std::regex overflows the stack on long values.
bool is_valid_quantity(std::string_view text);

/// The value of a valid quantity in base units ("1Gi" -> 1073741824, "100m" -> 0.1), or nothing
/// (also for a valid quantity longer than 64 characters: a hostile 50,000-digit value has no
/// useful size).
std::optional<double> quantity_base_units(std::string_view text);

/// A quantity rounded up to an integer, as apimachinery's Quantity.Value() returns it
/// (500m -> 1, 1.5 -> 2, -1.5 -> -1); saturates at the int64 range. Nothing when the text is not
/// a quantity, is longer than 64 characters or has a fractional or out-of-range exponent.
std::optional<std::int64_t> quantity_value(std::string_view text);

/// quantity_value for a JSON value: a string, or a number (YAML `cpu: 2`).
std::optional<std::int64_t> json_quantity_value(const nlohmann::json& value);

}  // namespace kpt::model::k8s
