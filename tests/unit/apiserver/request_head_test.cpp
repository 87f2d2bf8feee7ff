#include "apiserver/request_head.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kpt::apiserver {
namespace {

/// Feeds `bytes` to a scanner `piece` bytes at a time, as they would arrive.
Expected<std::size_t> scan_in_pieces(const std::string& bytes, std::size_t piece, HeadLimits limits = {}) {
  HeadScanner scanner(limits);
  std::string received;
  for (std::size_t at = 0; at < bytes.size(); at += piece) {
    received += bytes.substr(at, piece);
    auto r = scanner.scan(received);
    if (!r || *r > 0) return r;
  }
  return std::size_t{0};
}

TEST(HeadScanner, FindsTheEndOfAHeadHoweverItArrives) {
  const std::string head = "GET /api HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\n\r\n";
  for (const std::size_t piece : {std::size_t{1}, std::size_t{2}, std::size_t{7}, head.size()}) {
    SCOPED_TRACE(piece);
    auto r = scan_in_pieces(head + "{\"body\":1}", piece);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(*r, head.size());
  }
}

TEST(HeadScanner, ReadsLinesAsHttplibDoes) {
  struct Case {
    std::string name;
    std::string bytes;
    std::size_t want;
  };
  const std::vector<Case> cases = {
      {"no headers", "GET / HTTP/1.1\r\n\r\n", 18},
      // A header line without CR is skipped by httplib, so a bare LF does not end the head.
      {"a bare LF is not the end", "GET / HTTP/1.1\r\nA: b\n\n\r\n", 24},
      {"incomplete", "GET / HTTP/1.1\r\nHost: x\r\n", 0},
      {"a blank first line is the request line", "\r\n\r\n", 4},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    HeadScanner scanner;
    auto r = scanner.scan(c.bytes);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(*r, c.want);
  }
}

TEST(HeadScanner, RefusesAHeadOverItsLimitsAsSoonAsItGoesOver) {
  HeadLimits small;
  small.max_bytes = 150;
  small.max_header_lines = 3;
  small.max_request_line = 40;
  small.max_header_line = 60;
  struct Case {
    std::string name;
    std::string bytes;
    int status;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"a long request line, unfinished", "GET /" + std::string(40, 'a'), 414,
       "request-URI too long: the request line is over 40 bytes"},
      {"a long header line, unfinished", "GET / HTTP/1.1\r\nX: " + std::string(60, 'a'), 431,
       "request header fields too large: a header line is over 60 bytes"},
      {"too many lines", "GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n", 431,
       "request header fields too large: there are over 3 header lines"},
      {"too many bytes",
       "GET / HTTP/1.1\r\n" + std::string(3, 'X') + ": " + std::string(50, 'a') + "\r\n" +
           std::string(3, 'Y') + ": " + std::string(50, 'a') + "\r\n" + std::string(3, 'Z') + ": " +
           std::string(50, 'a') + "\r\n",
       431, "request header fields too large: the request head is over 150 bytes"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    for (const std::size_t piece : {std::size_t{1}, c.bytes.size()}) {
      auto r = scan_in_pieces(c.bytes, piece, small);
      ASSERT_FALSE(r);
      EXPECT_EQ(r.error().http_status, c.status);
      EXPECT_EQ(r.error().message, c.message);
    }
  }
}

TEST(HeadScanner, AOneMebibyteLineWithoutNewlineIsRefusedAtItsLimit) {
  HeadScanner scanner;
  std::string received = "GET / HTTP/1.1\r\nX: ";
  std::size_t fed = 0;
  Expected<std::size_t> r = std::size_t{0};
  while (r && *r == 0 && fed < (2u << 20)) {
    received.append(4096, 'a');
    fed += 4096;
    r = scanner.scan(received);
  }
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().http_status, 431);
  EXPECT_LE(received.size(), 8192u + 4096u + 32u);  // refused at the line limit, long before 1 MiB
}

TEST(ParseRequestHead, ReadsTheRequestLineAndHeaders) {
  auto head = parse_request_head(
      "PATCH /api/v1/namespaces/a%20b/pods/x?watch=1#frag HTTP/1.1\r\n"
      "Host: x\r\nauthorization:   Bearer t  \r\nbroken line\r\nEmpty:\r\nContent-Length: 4\r\n\r\n");
  ASSERT_TRUE(head) << head.error().message;
  EXPECT_EQ(head->method, "PATCH");
  EXPECT_EQ(head->target, "/api/v1/namespaces/a%20b/pods/x?watch=1#frag");
  EXPECT_EQ(head->path, "/api/v1/namespaces/a b/pods/x");
  EXPECT_EQ(head->version, "HTTP/1.1");
  EXPECT_EQ(head->header("Authorization"), "Bearer t");
  EXPECT_EQ(head->header("empty"), "");
  EXPECT_EQ(head->headers.size(), 3u);
  EXPECT_TRUE(head->announces_body());
}

TEST(ParseRequestHead, RefusesRequestLinesHttplibRefuses) {
  for (const std::string line : {"GET /\r\n", "BREW / HTTP/1.1\r\n", "GET / HTTP/2\r\n",
                                 "GET / HTTP/1.1 extra\r\n", "GET / HTTP/1.1\n"}) {
    SCOPED_TRACE(line);
    auto head = parse_request_head(line + "\r\n");
    ASSERT_FALSE(head);
    EXPECT_EQ(head.error().http_status, 400);
    EXPECT_EQ(head.error().message, "the request line is malformed");
  }
}

TEST(ParseRequestHead, KnowsWhetherABodyFollows) {
  struct Case {
    std::string headers;
    bool body;
  };
  for (const auto& c : std::vector<Case>{{"", false},
                                         {"Content-Length: 0\r\n", false},
                                         {"Content-Length: 12\r\n", true},
                                         {"Transfer-Encoding: chunked\r\n", true}}) {
    SCOPED_TRACE(c.headers);
    auto head = parse_request_head("GET / HTTP/1.1\r\n" + c.headers + "\r\n");
    ASSERT_TRUE(head);
    EXPECT_EQ(head->announces_body(), c.body);
  }
}

TEST(BearerTokenMatches, AcceptsOnlyTheExactBearerToken) {
  EXPECT_TRUE(bearer_token_matches("Bearer s3cret", "s3cret"));
  for (const char* wrong :
       {"Bearer s3cre", "Bearer s3cret ", "bearer s3cret", "Basic s3cret", "s3cret", ""}) {
    SCOPED_TRACE(wrong);
    EXPECT_FALSE(bearer_token_matches(wrong, "s3cret"));
  }
}

TEST(IsHealthPath, NamesTheThreeProbes) {
  EXPECT_TRUE(is_health_path("/healthz"));
  EXPECT_TRUE(is_health_path("/livez"));
  EXPECT_TRUE(is_health_path("/readyz"));
  EXPECT_FALSE(is_health_path("/healthz/ping"));
  EXPECT_FALSE(is_health_path("/api"));
}

}  // namespace
}  // namespace kpt::apiserver
