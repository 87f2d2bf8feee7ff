#include "apiserver/builtin_kinds.hpp"

#include "apiserver/http_types.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::apiserver {
namespace {

using nlohmann::json;

const ResourceInfo& secrets() {
  static const ResourceInfo res = [] {
    for (const auto& r : builtin_resources()) {
      if (r.kind == "Secret") return r;
    }
    return ResourceInfo{};
  }();
  return res;
}

TEST(BuiltinSecret, MergesStringDataIntoDataWithItsKeysWinning) {
  json secret = json::parse(R"({"metadata":{"name":"s"},"data":{"a":"b2xk","keep":"eA=="},
                               "stringData":{"a":"new","c":"plain"}})");
  ASSERT_FALSE(prepare_builtin(secrets(), secret));
  EXPECT_EQ(secret, json::parse(R"({"metadata":{"name":"s"},"data":{"a":"bmV3","keep":"eA==","c":"cGxhaW4="},
                                   "type":"Opaque"})"));
}

TEST(BuiltinSecret, RefusesDataThatIsNotBase64) {
  json secret = json::parse(R"({"metadata":{"name":"s"},"data":{"k":"not base64!"}})");
  const auto err = prepare_builtin(secrets(), secret);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->http_status, 400);
  EXPECT_EQ(err->message,
            "Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data in key 'k'");
}

HttpRequest with_query(const std::string& name, const std::string& value) {
  HttpRequest req;
  req.query.emplace(name, value);
  return req;
}

TEST(QueryFlag, ParsesBooleansAsGoStrconvParseBoolDoes) {
  for (const char* yes : {"1", "t", "T", "TRUE", "true", "True"}) {
    EXPECT_TRUE(with_query("watch", yes).flag("watch")) << yes;
  }
  for (const char* no : {"0", "f", "F", "false", "False", "FALSE"}) {
    EXPECT_FALSE(with_query("watch", no).flag("watch")) << no;
  }
  EXPECT_FALSE(HttpRequest{}.flag("watch"));
}

}  // namespace
}  // namespace kpt::apiserver
