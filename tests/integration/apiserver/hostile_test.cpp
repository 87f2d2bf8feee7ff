// Requests meant to break the server, sent over a raw socket as an attacker would: each ends in a
// 4xx answer and a server that still serves.
#include "apiserver/api_server.hpp"
#include "apiserver/body_limits.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <utility>

namespace kpt::apiserver::testing {
namespace {

using json = nlohmann::json;

const std::string k_maps = "/api/v1/namespaces/default/configmaps";

/// A plain-HTTP server; the slow-client test gives it a short read timeout, so a stalled body
/// ends within the test (the others a long one, so a test starved by a loaded machine still passes).
struct PlainServer {
  explicit PlainServer(std::chrono::seconds read_timeout = std::chrono::seconds(30))
      : server(options(read_timeout)) {
    auto started = server.start(0);
    if (!started) throw std::runtime_error(started.error().message);
    port = *started;
  }
  ~PlainServer() { server.stop(); }
  static ServerOptions options(std::chrono::seconds read_timeout) {
    ServerOptions o;
    o.tls = false;
    o.read_timeout = read_timeout;
    return o;
  }
  ApiServer server;
  int port = 0;
};

/// Sends `head` and then `body` (stopping early if the server answers first), and returns what
/// the server wrote before it closed or went quiet for 5 s.
std::string round_trip(int port, const std::string& head, const std::string& body = {}) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return "connect failed";
  }
  const std::string all = head + body;
  for (std::size_t off = 0; off < all.size();) {
    pollfd p{fd, POLLOUT | POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0 || (p.revents & POLLIN) != 0) break;  // the server has answered
    const auto n = ::send(fd, all.data() + off, std::min<std::size_t>(all.size() - off, 65536), MSG_NOSIGNAL);
    if (n <= 0) break;
    off += static_cast<std::size_t>(n);
  }
  std::string reply;
  char buf[4096];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) break;
    const auto n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    reply.append(buf, static_cast<std::size_t>(n));
    if (reply.find("\r\n\r\n") != std::string::npos && reply.back() == '}') break;
  }
  ::close(fd);
  return reply;
}

std::string post_head(const std::string& path, const std::string& extra) {
  return "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + extra + "\r\n";
}

int status_of(const std::string& reply) {
  return reply.rfind("HTTP/1.1 ", 0) == 0 ? std::stoi(reply.substr(9, 3)) : 0;
}

/// The first response's body (Content-Length long).
json body_of(const std::string& reply) {
  const auto start = reply.find("\r\n\r\n");
  if (start == std::string::npos) return nullptr;
  const auto length_at = reply.find("Content-Length: ");
  std::size_t length = std::string::npos;
  if (length_at != std::string::npos && length_at < start) length = std::stoul(reply.substr(length_at + 16));
  return json::parse(reply.substr(start + 4, length), nullptr, false);
}

/// Sends `first`, waits, then sends `second` in one write (so that it is in flight as a whole when
/// the server reads its first bytes), and returns all the server wrote until it closed or went
/// quiet for 5 s, with whether it closed.
std::pair<std::string, bool> exchange_in_two(int port, const std::string& first, const std::string& second) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return {"connect failed", false};
  }
  for (const std::string* part : {&first, &second}) {
    for (std::size_t off = 0; off < part->size();) {
      const auto n = ::send(fd, part->data() + off, part->size() - off, MSG_NOSIGNAL);
      if (n <= 0) break;
      off += static_cast<std::size_t>(n);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::string reply;
  bool closed = false;
  char buf[4096];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) break;
    const auto n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) {
      closed = true;
      break;
    }
    reply.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return {reply, closed};
}

std::size_t responses_in(const std::string& reply) {
  std::size_t count = 0;
  for (auto at = reply.find("HTTP/1.1 "); at != std::string::npos; at = reply.find("HTTP/1.1 ", at + 1))
    ++count;
  return count;
}

bool alive(int port) {
  return status_of(round_trip(port, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")) == 200;
}

std::string big_config_map() {
  return json{{"metadata", {{"name", "big"}}}, {"data", {{"k", std::string(4 * 1024 * 1024, 'x')}}}}.dump();
}

TEST(ApiServerHostile, ABodyOverThreeMebibytesIsRefusedWith413) {
  PlainServer s;
  const auto body = big_config_map();
  const auto reply =
      round_trip(s.port, post_head(k_maps, "Content-Length: " + std::to_string(body.size()) + "\r\n"), body);
  EXPECT_EQ(status_of(reply), 413) << reply.substr(0, 200);
  EXPECT_EQ(body_of(reply),
            json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
      "message":"Request entity too large: limit is 3145728","reason":"RequestEntityTooLarge","code":413})"));
  EXPECT_TRUE(alive(s.port));
}

TEST(ApiServerHostile, AChunkedBodyOverTheLimitIsRefusedToo) {
  PlainServer s;
  const auto body = big_config_map();
  std::string chunked;
  for (std::size_t off = 0; off < body.size(); off += 65536) {
    const auto part = body.substr(off, 65536);
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", part.size());
    chunked += size + part + "\r\n";
  }
  chunked += "0\r\n\r\n";
  const auto reply = round_trip(s.port, post_head(k_maps, "Transfer-Encoding: chunked\r\n"), chunked);
  EXPECT_EQ(status_of(reply), 413) << reply.substr(0, 200);
  EXPECT_EQ(body_of(reply).is_object() ? body_of(reply).value("message", "") : reply,
            "Request entity too large: limit is 3145728");
  EXPECT_TRUE(alive(s.port));
}

TEST(ApiServerHostile, ABodyNested150000DeepIsABadRequest) {
  PlainServer s;
  const std::string body = std::string(150000, '[') + std::string(150000, ']');
  for (const char* path : {"/api/v1/namespaces/default/configmaps", "/api/v1/namespaces/default/pods"}) {
    SCOPED_TRACE(path);
    const auto reply =
        round_trip(s.port, post_head(path, "Content-Length: " + std::to_string(body.size()) + "\r\n"), body);
    EXPECT_EQ(status_of(reply), 400) << reply.substr(0, 200);
    EXPECT_EQ(body_of(reply)["message"], "the body of the request nests deeper than 10000 levels");
  }
  const std::string patch = "PATCH " + k_maps +
                            "/x HTTP/1.1\r\nHost: x\r\nContent-Type: application/merge-patch+json\r\n" +
                            "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  EXPECT_EQ(status_of(round_trip(s.port, patch, body)), 400);
  EXPECT_TRUE(alive(s.port));
}

TEST(ApiServerHostile, BytesAfterABodyRefusedAsTooLargeAreNeverServedAsRequests) {
  PlainServer s;
  const std::string victim = k_maps + "/victim";
  const std::string victim_body = R"({"metadata":{"name":"victim"}})";
  const auto created =
      round_trip(s.port, post_head(k_maps, "Content-Length: " + std::to_string(victim_body.size()) + "\r\n"),
                 victim_body);
  ASSERT_EQ(status_of(created), 201) << created;
  // A chunked body exactly at the limit, then a chunk whose data is requests: httplib stops reading
  // the body part-way through that chunk, and what follows would parse as a DELETE.
  std::string first = post_head(k_maps, "Transfer-Encoding: chunked\r\n");
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", k_max_request_body_bytes);
  first += size + std::string(k_max_request_body_bytes, ' ') + "\r\n";
  std::string smuggled;
  while (smuggled.size() < 16 * 1024) smuggled += "DELETE " + victim + " HTTP/1.1\r\nHost: x\r\n\r\n";
  std::snprintf(size, sizeof size, "%zx\r\n", smuggled.size());
  const auto [reply, closed] = exchange_in_two(s.port, first, size + smuggled + "\r\n0\r\n\r\n");
  EXPECT_EQ(status_of(reply), 413) << reply.substr(0, 300);
  EXPECT_EQ(responses_in(reply), 1u) << reply.substr(0, 2000);
  EXPECT_TRUE(closed);
  const auto still =
      round_trip(s.port, "GET " + victim + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_of(still), 200) << still;
}

TEST(ApiServerHostile, TheConnectionEndsAfterABodyRefusedAsTooDeep) {
  PlainServer s;
  const std::string body = std::string(10001, '[') + std::string(10001, ']');
  const std::string request =
      post_head(k_maps, "Content-Length: " + std::to_string(body.size()) + "\r\n") + body;
  // The next request is sent with it, as a pipelining client would.
  const auto [reply, closed] =
      exchange_in_two(s.port, request + "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", "");
  EXPECT_EQ(status_of(reply), 400) << reply.substr(0, 300);
  EXPECT_EQ(responses_in(reply), 1u) << reply;
  EXPECT_NE(reply.find("Connection: close\r\n"), std::string::npos) << reply;
  EXPECT_TRUE(closed);
  EXPECT_TRUE(alive(s.port));
}

TEST(ApiServerHostile, AClientThatNeverFinishesItsBodyGets400AndTheServerServesOthers) {
  PlainServer s(std::chrono::seconds(1));
  const auto reply = round_trip(s.port, post_head(k_maps, "Content-Length: 100\r\n"), "{\"metadata\":");
  EXPECT_EQ(status_of(reply), 400) << reply;
  EXPECT_EQ(
      body_of(reply)["message"],
      "the body of the request could not be read: it was shorter than announced, malformed, or too slow");
  EXPECT_TRUE(alive(s.port));
}

}  // namespace
}  // namespace kpt::apiserver::testing
