#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string_view>

namespace kpt::model::trainjob {

/// A Kubernetes resource quantity ("500m", "1.5", "4Gi", "1e3") rounded up to an integer, as
/// apimachinery's Quantity.Value() returns it (500m -> 1, 1.5 -> 2, -1.5 -> -1); saturates at
/// the int64 range. Nothing when the text is not a quantity (bad number, unknown suffix, > 64 chars).
std::optional<std::int64_t> quantity_value(std::string_view text);

/// The same for a JSON value: a string, or a number (YAML `cpu: 2`).
std::optional<std::int64_t> json_quantity_value(const nlohmann::json& value);

}  // namespace kpt::model::trainjob
