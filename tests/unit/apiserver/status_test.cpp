#include "apiserver/status.hpp"

#include <gtest/gtest.h>

namespace kpt::apiserver {
namespace {

// Found by fuzz_apiserver_request (corpus regression-invalid-utf8-in-error): a GET of a name that
// is not UTF-8 made the NotFound message throw in json::dump and the server abort.
TEST(ErrorResponse, AMessageThatIsNotUtf8IsRenderedWithReplacementCharacters) {
  Error e;
  e.code = ErrorCode::api;
  e.http_status = 404;
  e.reason = "NotFound";
  e.message = "pods \"a\xAF\" not found";
  const HttpResponse r = error_response(e);
  EXPECT_EQ(r.status, 404);
  const auto body = nlohmann::json::parse(r.body);
  EXPECT_EQ(body["message"], "pods \"a\xEF\xBF\xBD\" not found");
}

}  // namespace
}  // namespace kpt::apiserver
