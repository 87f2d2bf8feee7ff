// check_and_eval must give a result for any text: mutations of real rules (inserted, deleted
// and replaced bytes, drawn from a fixed seed so a failure reproduces) never crash, throw or
// hang it. A libFuzzer target over the same entry point explores further.

#include "tests/unit/cel/cel_test_support.hpp"

#include <gtest/gtest.h>

#include <random>

namespace kpt::cel {
namespace {

using namespace kpt::cel::testing;

const std::vector<std::string> k_seeds = {
    "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
    "[has(self.torch), has(self.mpi)].filter(x, x).size() <= 1",
    "!(has(self.startupPolicy) && self.replicatedJobs.exists(x, has(x.dependsOn)))",
    "self.templates.all(t, !has(t.metadata.namespace) || size(t.metadata.namespace) == 0)",
    "self in ['a', 'b'] ? 1u + 2u == 3u : 'x\\u00e9'.split('').map(c, c + c).join('-') == r'\\d'",
    "{'a': [1, 2.5, -3], 'b': {true: null}}['a'][0] / 0 == 0x1F % 3",
};

const std::string k_alphabet =
    "()[]{}.,:?!&|=<>+-*/%'\"\\rbu0123456789xe_ self oldSelf has all map \n\x80\xff";

std::string mutate(std::string rule, std::mt19937& rng) {
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < edits; ++i) {
    const std::size_t at = rule.empty() ? 0 : rng() % (rule.size() + 1);
    const char c = k_alphabet[rng() % k_alphabet.size()];
    switch (rng() % 3) {
      case 0:
        rule.insert(rule.begin() + static_cast<std::ptrdiff_t>(at), c);
        break;
      case 1:
        if (at < rule.size()) rule.erase(at, 1);
        break;
      default:
        if (at < rule.size()) rule[at] = c;
        break;
    }
  }
  return rule;
}

TEST(CelRobustness, MutatedRulesAlwaysGiveAResult) {
  const Value self = obj({{"metadata", obj({{"name", str("job")}})},
                          {"templates", list({obj({{"metadata", obj({})}})})},
                          {"replicatedJobs", list({obj({{"dependsOn", list({})}})})},
                          {"torch", obj({})}});
  std::mt19937 rng(20240611);
  int statuses[6] = {};
  for (int i = 0; i < 20000; ++i) {
    const std::string rule = mutate(k_seeds[static_cast<std::size_t>(i) % k_seeds.size()], rng);
    const RuleResult r = check_and_eval(rule, self);
    ++statuses[static_cast<int>(r.status)];
    const bool decided = r.status == Status::pass || r.status == Status::fail;
    ASSERT_EQ(r.message.empty(), decided) << rule;
  }
  // Every kind of outcome shows up, so the mutations reach past the lexer.
  EXPECT_GT(statuses[static_cast<int>(Status::pass)], 0);
  EXPECT_GT(statuses[static_cast<int>(Status::fail)], 0);
  EXPECT_GT(statuses[static_cast<int>(Status::error)], 0);
  EXPECT_GT(statuses[static_cast<int>(Status::unsupported)], 0);
}

TEST(CelRobustness, RandomBytesAlwaysGiveAResult) {
  std::mt19937 rng(7);
  for (int i = 0; i < 5000; ++i) {
    std::string rule(rng() % 64, ' ');
    for (char& c : rule) c = k_alphabet[rng() % k_alphabet.size()];
    const RuleResult r = check_and_eval(rule, Value());
    const bool decided = r.status == Status::pass || r.status == Status::fail;
    EXPECT_EQ(r.message.empty(), decided) << rule;
    if (r.status == Status::skipped) {
      EXPECT_NE(rule.find("oldSelf"), std::string::npos) << rule;
    }
  }
}

}  // namespace
}  // namespace kpt::cel
