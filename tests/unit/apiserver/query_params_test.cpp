#include "apiserver/query_params.hpp"

#include "apiserver/log_provider.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kpt::apiserver {
namespace {

using SysClock = std::chrono::system_clock;

HttpRequest with_query(std::vector<std::pair<std::string, std::string>> params) {
  HttpRequest r;
  r.method = "GET";
  for (auto& [k, v] : params) r.query.emplace(std::move(k), std::move(v));
  return r;
}

TEST(ParseGoInt64, AcceptsWhatStrconvParseIntAccepts) {
  struct Case {
    std::string text;
    std::int64_t want;
  };
  for (const auto& c : std::vector<Case>{{"0", 0},
                                         {"42", 42},
                                         {"+7", 7},
                                         {"-1", -1},
                                         {"007", 7},
                                         {"9223372036854775807", INT64_MAX},
                                         {"-9223372036854775808", INT64_MIN}}) {
    SCOPED_TRACE(c.text);
    auto r = parse_go_int64(c.text);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(*r, c.want);
  }
}

TEST(ParseGoInt64, RefusesTheRestWithGosMessage) {
  struct Case {
    std::string text;
    std::string message;
  };
  for (const auto& c : std::vector<Case>{
           {"abc", "strconv.ParseInt: parsing \"abc\": invalid syntax"},
           {"", "strconv.ParseInt: parsing \"\": invalid syntax"},
           {"-", "strconv.ParseInt: parsing \"-\": invalid syntax"},
           {"1.5", "strconv.ParseInt: parsing \"1.5\": invalid syntax"},
           {" 1", "strconv.ParseInt: parsing \" 1\": invalid syntax"},
           {"1_000", "strconv.ParseInt: parsing \"1_000\": invalid syntax"},
           {"0x10", "strconv.ParseInt: parsing \"0x10\": invalid syntax"},
           {"9223372036854775808", "strconv.ParseInt: parsing \"9223372036854775808\": value out of range"},
           {"-9223372036854775809", "strconv.ParseInt: parsing \"-9223372036854775809\": value out of range"},
           {"99999999999999999999999",
            "strconv.ParseInt: parsing \"99999999999999999999999\": value out of range"},
       }) {
    SCOPED_TRACE(c.text);
    auto r = parse_go_int64(c.text);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().http_status, 400);
    EXPECT_EQ(r.error().reason, "BadRequest");
    EXPECT_EQ(r.error().message, c.message);
  }
}

TEST(Int64Param, IsAbsentOrParsed) {
  EXPECT_EQ(*int64_param(with_query({}), "limit"), std::nullopt);
  EXPECT_EQ(*int64_param(with_query({{"limit", "5"}}), "limit"), 5);
  EXPECT_FALSE(int64_param(with_query({{"limit", "five"}}), "limit"));
}

TEST(LogRequestOf, ReadsPodLogOptions) {
  const auto now = SysClock::now();
  auto r = log_request_of(with_query({{"container", "main"},
                                      {"follow", "true"},
                                      {"previous", "false"},
                                      {"tailLines", "10"},
                                      {"limitBytes", "2048"},
                                      {"sinceSeconds", "60"}}),
                          "ns", "p", now);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->ns, "ns");
  EXPECT_EQ(r->pod, "p");
  EXPECT_EQ(r->container, "main");
  EXPECT_TRUE(r->follow);
  EXPECT_FALSE(r->previous);
  EXPECT_EQ(r->tail_lines, 10);
  EXPECT_EQ(r->limit_bytes, 2048);
  EXPECT_EQ(r->since, now - std::chrono::seconds(60));
  auto at = log_request_of(with_query({{"sinceTime", "2026-01-02T03:04:05Z"}}), "ns", "p", now);
  ASSERT_TRUE(at) << at.error().message;
  EXPECT_EQ(at->since,
            SysClock::time_point(std::chrono::sys_days(std::chrono::year(2026) / 1 / 2) +
                                 std::chrono::hours(3) + std::chrono::minutes(4) + std::chrono::seconds(5)));
}

TEST(LogRequestOf, RefusesWhatKubeApiserverRefuses) {
  struct Case {
    std::string name;
    std::vector<std::pair<std::string, std::string>> query;
    int status;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"tailLines not a number",
       {{"tailLines", "abc"}},
       400,
       "strconv.ParseInt: parsing \"abc\": invalid syntax"},
      {"limitBytes out of range",
       {{"limitBytes", "99999999999999999999"}},
       400,
       "strconv.ParseInt: parsing \"99999999999999999999\": value out of range"},
      {"sinceSeconds empty", {{"sinceSeconds", ""}}, 400, "strconv.ParseInt: parsing \"\": invalid syntax"},
      {"sinceTime not a time",
       {{"sinceTime", "yesterday"}},
       400,
       "parsing time \"yesterday\" as \"2006-01-02T15:04:05Z07:00\": not an RFC 3339 time"},
      {"negative tailLines",
       {{"tailLines", "-1"}},
       422,
       "PodLogOptions \"p\" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0"},
      {"limitBytes zero",
       {{"limitBytes", "0"}},
       422,
       "PodLogOptions \"p\" is invalid: limitBytes: Invalid value: 0: must be greater than 0"},
      {"sinceSeconds zero",
       {{"sinceSeconds", "0"}},
       422,
       "PodLogOptions \"p\" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0"},
      {"both since",
       {{"sinceSeconds", "5"}, {"sinceTime", "2026-01-02T03:04:05Z"}},
       422,
       "PodLogOptions \"p\" is invalid: Forbidden: at most one of `sinceTime` or `sinceSeconds` may be "
       "specified"},
      {"two at once",
       {{"tailLines", "-2"}, {"limitBytes", "-3"}},
       422,
       "PodLogOptions \"p\" is invalid: [tailLines: Invalid value: -2: must be greater than or equal to 0, "
       "limitBytes: Invalid value: -3: must be greater than 0]"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = log_request_of(with_query(c.query), "ns", "p", SysClock::now());
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().http_status, c.status);
    EXPECT_EQ(r.error().message, c.message);
  }
}

TEST(LogRequestOf, AHugeSinceSecondsDoesNotOverflowTheClock) {
  const auto now = SysClock::now();
  auto r = log_request_of(with_query({{"sinceSeconds", "9223372036854775807"}}), "ns", "p", now);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r->since);
  EXPECT_LT(*r->since, now);
}

}  // namespace
}  // namespace kpt::apiserver
