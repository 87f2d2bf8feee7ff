#include "kube/rest_client.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::kube {
namespace {

// The watch-stream fuzz target found an ERROR event whose Status message was a number: the
// decoder threw nlohmann's type_error, which ended the process.
TEST(DecodeStatusError, FieldsOfTheWrongTypeAreLeftOutNotThrown) {
  const Error e = decode_status_error(
      422,
      R"({"kind":"Status","reason":7,"message":0,"details":{"causes":[{"field":1,"message":["m"]},"x"]}})",
      "POST");
  EXPECT_EQ(e.http_status, 422);
  EXPECT_EQ(e.reason, "Invalid");
  EXPECT_FALSE(e.message.empty());
  const Error kind = decode_status_error(500, R"({"kind":5})", "GET");
  EXPECT_EQ(kind.http_status, 500);
}

TEST(DecodeStatusError, AStatusGivesItsCodeReasonMessageAndCauses) {
  const Error e =
      decode_status_error(500,
                          R"({"kind":"Status","code":422,"reason":"Invalid","message":"x is invalid",
          "details":{"causes":[{"field":"spec.a","message":"bad"}]}})",
                          "POST");
  EXPECT_EQ(e.http_status, 422);
  EXPECT_EQ(e.reason, "Invalid");
  EXPECT_EQ(e.message, "x is invalid: spec.a: bad");
}

}  // namespace
}  // namespace kpt::kube
