#include "model/k8s/quantity.hpp"
#include "schema/structural_schema_impl.hpp"

#include <regex>

namespace kpt::schema {

struct CompiledPattern {
  bool quantity = false;
  bool bad = false;
  std::regex regex;
};

namespace {
constexpr std::size_t k_max_regex_input = 4096;
constexpr std::string_view k_quantity_pattern =
    R"(^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$)";
}  // namespace

bool is_quantity_pattern(std::string_view pattern) { return pattern == k_quantity_pattern; }

void compile_pattern(StructuralSchema& schema) {
  if (schema.pattern.empty()) {
    schema.compiled_pattern.reset();
    return;
  }
  auto compiled = std::make_shared<CompiledPattern>();
  if (is_quantity_pattern(schema.pattern)) {
    compiled->quantity = true;
  } else {
    try {
      compiled->regex = std::regex(schema.pattern, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error&) {
      compiled->bad = true;
    }
  }
  schema.compiled_pattern = std::move(compiled);
}

PatternResult match_pattern(const CompiledPattern& pattern, std::string_view value) {
  if (pattern.quantity)
    return model::k8s::is_valid_quantity(value) ? PatternResult::match : PatternResult::no_match;
  if (pattern.bad) return PatternResult::bad_pattern;
  if (value.size() > k_max_regex_input) return PatternResult::too_long;
  try {
    // OpenAPI patterns are unanchored: search, as the API server's Go regexp does.
    return std::regex_search(value.begin(), value.end(), pattern.regex) ? PatternResult::match
                                                                        : PatternResult::no_match;
  } catch (const std::regex_error&) {
    return PatternResult::too_long;  // complexity or stack limit hit inside the matcher
  }
}

}  // namespace kpt::schema
