#include "apiserver/body_limits.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kpt::apiserver {
namespace {

TEST(JsonTooDeep, CountsOnlyBracketsOutsideStrings) {
  const std::string deep_in_a_string = "{\"k\":\"" + std::string(20000, '[') + "\\\"\"}";
  EXPECT_FALSE(json_too_deep(deep_in_a_string));
  EXPECT_FALSE(json_too_deep(std::string(k_max_json_depth, '[')));
}

TEST(JsonTooDeep, RefusesOneLevelPastTheLimitWithTheWholeMessage) {
  const auto err =
      json_too_deep(std::string(k_max_json_depth / 2, '[') + std::string(k_max_json_depth / 2 + 1, '{'));
  ASSERT_TRUE(err);
  EXPECT_EQ(err->http_status, 400);
  EXPECT_EQ(err->message, "the body of the request nests deeper than 10000 levels");
}

TEST(RequestEntityTooLarge, SaysTheRealServersLimit) {
  const auto err = request_entity_too_large();
  EXPECT_EQ(err.http_status, 413);
  EXPECT_EQ(err.reason, "RequestEntityTooLarge");
  EXPECT_EQ(err.message, "Request entity too large: limit is 3145728");
}

TEST(RefusedBody, AnswersToATooLargeOrTooDeepBodyEndTheConnectionAndOthersDoNot) {
  EXPECT_TRUE(error_response(request_entity_too_large()).close_connection);
  EXPECT_TRUE(error_response(*json_too_deep(std::string(k_max_json_depth + 1, '['))).close_connection);
  EXPECT_FALSE(
      error_response(bad_request("the body of the request was in an unknown format")).close_connection);
  EXPECT_FALSE(error_response(not_found("", "pods", "p")).close_connection);
}

}  // namespace
}  // namespace kpt::apiserver
