#pragma once

#include "schema/cel/cel.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace kpt::cel::testing {

inline Value str(std::string s) { return Value::string(std::move(s)); }
inline Value num(std::int64_t i) { return Value::int64(i); }
inline Value list(std::vector<Value> items) { return Value::list(std::move(items)); }

/// A schema object (properties), as the schema layer binds one: field names may be escaped.
inline Value obj(std::vector<std::pair<std::string, Value>> fields) {
  MapBuilder b(true);
  for (auto& [k, v] : fields) b.add(std::move(k), std::move(v));
  return std::move(b).build();
}

/// What a rule evaluation is expected to give: the status and the entire message.
struct Expect {
  Status status;
  std::string message;
};

inline Expect pass() { return {Status::pass, ""}; }
inline Expect fail() { return {Status::fail, ""}; }
inline Expect error(std::string message) { return {Status::error, std::move(message)}; }
inline Expect unsupported(std::string what) { return {Status::unsupported, std::move(what)}; }

/// One row of a table-driven test: a rule, the self it sees, the result it must give.
struct Case {
  std::string rule;
  Expect expect;
  Value self = Value::null();
};

inline void expect_result(const RuleResult& got, const Expect& want) {
  EXPECT_EQ(to_string(got.status), std::string(to_string(want.status)));
  EXPECT_EQ(got.message, want.message);
}

inline void run_cases(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    SCOPED_TRACE(c.rule);
    expect_result(check_and_eval(c.rule, c.self), c.expect);
  }
}

}  // namespace kpt::cel::testing
