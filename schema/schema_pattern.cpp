#include "model/k8s/quantity.hpp"
#include "schema/cel/regex.hpp"
#include "schema/structural_schema_impl.hpp"

namespace kpt::schema {

// The API server matches OpenAPI patterns with Go's regexp (RE2 syntax), as CEL's matches() does,
// so both run on RE2 through cel::regex::Regex: it refuses what Go refuses (backreferences, counts
// over 1000, `\C`), matches in linear time, and never hands a hostile pattern to std::regex, whose
// parser overflows on numbers such as `\88888888888888888888` (found by fuzzing). Each pattern is
// compiled once, when its schema is.
struct CompiledPattern {
  bool quantity = false;
  bool bad = false;
  std::shared_ptr<const cel::regex::Regex> regex;
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
    auto regex = cel::regex::Regex::compile(schema.pattern);
    if (auto* ok = std::get_if<std::shared_ptr<const cel::regex::Regex>>(&regex)) {
      compiled->regex = std::move(*ok);
    } else {
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
  // OpenAPI patterns are unanchored: search, as the API server's Go regexp does.
  return pattern.regex->search(value) ? PatternResult::match : PatternResult::no_match;
}

}  // namespace kpt::schema
