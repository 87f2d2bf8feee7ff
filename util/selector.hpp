#pragma once

#include "util/expected.hpp"

#include <functional>
#include <string>
#include <vector>

namespace kpt::util {

/// One requirement of a Kubernetes label or field selector.
struct Requirement {
  enum class Op { equals, not_equals, in, not_in, exists, not_exists };
  std::string key;
  Op op = Op::equals;
  std::vector<std::string> values;
};

/// Parses a label selector as the API server does: `a=b,c==d,e!=f,g in (x,y),h notin (z),i,!j`.
/// Empty text selects everything. Errors (code usage) quote the requirement that failed.
Expected<std::vector<Requirement>> parse_label_selector(const std::string& text);

/// Parses a field selector: `metadata.name=x,status.phase!=Running` (only =, == and !=). Which
/// fields may be selected is the caller's business.
Expected<std::vector<Requirement>> parse_field_selector(const std::string& text);

/// Whether every requirement holds; `value_of(key)` gives the key's value, or nullptr when absent.
bool selector_matches(const std::vector<Requirement>& requirements,
                      const std::function<const std::string*(const std::string&)>& value_of);

}  // namespace kpt::util
