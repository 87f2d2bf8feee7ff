#pragma once

// Seeded generators for the validator differential: random OpenAPI v3 schemas over the subset
// both our structural validator and valijson implement (plus the Kubernetes extensions, which
// the comparison classifies), values that satisfy them, and mutations that may not.
#include <nlohmann/json.hpp>

#include <random>
#include <string>

namespace kpt::differential {

/// A random CRD-style schema for the `spec` of an object, at most `depth` levels deep.
nlohmann::json random_schema(std::mt19937_64& rng, int depth = 3);

/// A value `schema` accepts (as far as the generator knows: the validators decide).
nlohmann::json valid_value(const nlohmann::json& schema, std::mt19937_64& rng);

/// `value` with one random change somewhere inside: a value of another type, a key removed or
/// added, null, a number or length one past a bound, an item repeated.
nlohmann::json mutated_value(const nlohmann::json& value, std::mt19937_64& rng);

/// The Kubernetes quantity pattern (k8s.io/apimachinery resource.Quantity), as CRDs carry it.
const std::string& quantity_pattern();

}  // namespace kpt::differential
