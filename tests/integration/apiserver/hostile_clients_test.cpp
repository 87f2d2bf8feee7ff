// Clients that are slow, idle, gone or flooding, most of them without the token, against the
// server the local cluster runs (TLS and a token, as `local up` starts it). None may freeze it,
// grow its memory without bound or keep its threads: the server, controller and node share one
// process. Each test is bounded well under a minute.
#include "apiserver/api_server.hpp"
#include "client.hpp"
#include "raw_client.hpp"
#include "tests/support/memory_log_provider.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kpt::apiserver::testing {
namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::json;
using namespace std::chrono_literals;

const std::string k_maps = "/api/v1/namespaces/default/configmaps";

/// Waits up to `wait` for `done`; how long it took (`wait` when it never happened).
template <typename Done>
std::chrono::milliseconds time_until(Done done, std::chrono::milliseconds wait) {
  const auto start = Clock::now();
  while (!done() && Clock::now() - start < wait) std::this_thread::sleep_for(20ms);
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
}

/// The JSON body of the first answer in `reply` (null when there is none).
json body_of(const std::string& reply) {
  const auto start = reply.find("\r\n\r\n");
  if (start == std::string::npos) return nullptr;
  return json::parse(reply.substr(start + 4), nullptr, false);
}

TEST(ApiServerHostileClients, SlowHeadsAndIdleConnectsWithoutTheTokenDoNotDelayOthers) {
  Harness h;
  const int port = h.server->port();
  ASSERT_EQ(h.client->get("/api/v1/namespaces").status, 200);
  const auto threads_before = process_threads();
  std::vector<std::unique_ptr<RawConnection>> idle;
  std::vector<std::unique_ptr<RawConnection>> slow;
  for (int i = 0; i < 100; ++i)
    idle.push_back(std::make_unique<RawConnection>(port, false));  // never says hello
  for (int i = 0; i < 100; ++i) {
    slow.push_back(std::make_unique<RawConnection>(port, true));
    ASSERT_TRUE(slow.back()->ok());
    ASSERT_TRUE(slow.back()->send("GET /api/v1/namespaces HTTP/1.1\r\n"));
  }
  // All of them wait in the front end, none on a thread of its own.
  time_until([&] { return h.server->stats().held >= 200; }, 5s);
  EXPECT_GE(h.server->stats().held, 200u);
  EXPECT_LT(process_threads(), threads_before + 10);
  std::chrono::milliseconds worst{0};
  for (int round = 0; round < 5; ++round) {
    const auto round_start = Clock::now();
    for (auto& c : slow) c->send("X-Slow: " + std::to_string(round) + "\r\n");  // a header line a second
    for (int i = 0; i < 4; ++i) {
      const auto start = Clock::now();
      const auto r = h.client->get("/api/v1/namespaces");  // a new connection each time, as kubectl makes
      worst = std::max(worst, std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start));
      EXPECT_EQ(r.status, 200);
    }
    std::this_thread::sleep_until(round_start + 1s);
  }
  EXPECT_LT(worst, 1s);
  std::cout << "slowest authenticated GET among 100 slow heads and 100 idle connects: " << worst.count()
            << " ms\n";
}

TEST(ApiServerHostileClients, AHeadThatKeepsComingIsCutAtTheHeaderTimeout) {
  ServerOptions options;
  options.header_timeout = 1s;
  Harness h(options);
  const int port = h.server->port();
  RawConnection idle(port, false);
  RawConnection slow(port, true);
  ASSERT_TRUE(slow.ok());
  const auto start = Clock::now();
  slow.send("GET /api/v1/namespaces HTTP/1.1\r\n");
  bool closed = false;
  while (!closed && Clock::now() - start < 5s) {
    slow.send("X-Slow: y\r\n");  // a byte in time does not move the deadline
    closed = slow.closed_by_server(200ms);
  }
  const auto elapsed = Clock::now() - start;
  EXPECT_TRUE(closed);
  EXPECT_LT(elapsed, 3s);
  EXPECT_TRUE(idle.closed_by_server(2s));
  EXPECT_LT(time_until([&] { return h.server->stats().held == 0; }, 2s), 2s);
}

/// Sends `head_start`, then `block` again and again until `total` bytes went or the server
/// answered; returns the answer and how much was sent.
std::pair<std::string, std::size_t> flood_head(RawConnection& c, const std::string& head_start,
                                               const std::string& block, std::size_t total) {
  c.send(head_start);
  std::size_t sent = head_start.size();
  while (sent < total && !c.readable() && c.send(block)) sent += block.size();
  return {c.receive(5s, "}"), sent};
}

TEST(ApiServerHostileClients, SixtyFourMebibytesOfHeadersAreRefusedWith431InLittleMemory) {
  Harness h;
  const int port = h.server->port();
  ASSERT_EQ(h.client->get("/api/v1/namespaces").status, 200);
  {
    RawConnection warm(port, true);  // the first TLS connection allocates what every later one reuses
    warm.send(get_head("/api/v1/namespaces", ""));
    warm.receive(5s, "}");
  }
  const auto peak_before = peak_resident_kib();
  const std::string line = "X-Pad: " + std::string(8000, 'a') + "\r\n";  // under the 8 KiB line limit
  std::string block;
  while (block.size() < 64 * 1024) block += line;
  RawConnection c(port, true);
  ASSERT_TRUE(c.ok());
  const auto [reply, sent] =
      flood_head(c, "GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n", block, 64u << 20);
  const auto growth_kib = peak_resident_kib() - peak_before;
  EXPECT_EQ(status_of(reply), 431) << reply.substr(0, 300);
  EXPECT_EQ(body_of(reply).value("message", ""),
            "request header fields too large: the request head is over 1048576 bytes");
  EXPECT_LT(sent, 16u << 20);
  if (!k_under_asan) {
    EXPECT_LT(growth_kib, 4u * 1024);
  }
  std::cout << "64 MiB of headers: refused after " << sent / 1024 << " KiB sent, peak RSS +" << growth_kib
            << " KiB\n";
  EXPECT_EQ(h.client->get("/api/v1/namespaces").status, 200);
}

TEST(ApiServerHostileClients, AHeaderLineOrHeaderCountOverTheLimitsIsA431) {
  Harness h;
  const int port = h.server->port();
  struct Case {
    std::string name;
    std::string block;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"a 32 MiB line", std::string(64 * 1024, 'a'),
       "request header fields too large: a header line is over 8192 bytes"},
      {"many short lines",
       [] {
         std::string b;
         while (b.size() < 64 * 1024) b += "X: y\r\n";
         return b;
       }(),
       "request header fields too large: there are over 256 header lines"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    RawConnection conn(port, true);
    const auto [reply, sent] = flood_head(conn, "GET / HTTP/1.1\r\nX-Long: ", c.block, 32u << 20);
    EXPECT_EQ(status_of(reply), 431) << reply.substr(0, 300);
    EXPECT_EQ(body_of(reply).value("message", ""), c.message);
    EXPECT_LT(sent, 16u << 20);
  }
  EXPECT_EQ(h.client->get("/api/v1/namespaces").status, 200);
}

/// Opens `count` streams with `path` and reads their heads.
std::vector<std::unique_ptr<RawConnection>> open_streams(int port, const std::string& path, int count) {
  std::vector<std::unique_ptr<RawConnection>> out;
  for (int i = 0; i < count; ++i) {
    auto c = std::make_unique<RawConnection>(port, true);
    c->send(get_head(path, k_test_token));
    const auto head = c->receive(5s, "\r\n\r\n");
    EXPECT_EQ(status_of(head), 200) << head;
    out.push_back(std::move(c));
  }
  return out;
}

TEST(ApiServerHostileClients, InterruptedWatchesFreeTheirThreadsWithinFiveSeconds) {
  Harness h;
  const int port = h.server->port();
  ASSERT_EQ(h.client->get("/api/v1/namespaces").status, 200);
  const auto threads_before = process_threads();
  auto watches = open_streams(port, k_maps + "?watch=true", 100);
  EXPECT_EQ(h.server->stats().streams, 100u);
  EXPECT_GE(process_threads(), threads_before + 100);  // a thread each, none from the request pool
  for (auto& w : watches) w->drop();                   // as `kubectl get -w` interrupted
  const auto freed = time_until(
      [&] { return h.server->stats().streams == 0 && process_threads() <= threads_before + 2; }, 10s);
  EXPECT_LT(freed, 5s);
  EXPECT_EQ(h.server->stats().streams, 0u);
  std::cout << "100 interrupted watches: threads freed in " << freed.count() << " ms\n";
  EXPECT_EQ(h.client->get("/api/v1/namespaces").status, 200);
}

TEST(ApiServerHostileClients, InterruptedLogFollowsFreeTheirThreadsToo) {
  Harness h;
  auto logs = std::make_shared<MemoryLogProvider>();
  h.server->set_log_provider(logs);
  ASSERT_EQ(h.client->post("/api/v1/namespaces/default/pods", pod("a")).status, 201);
  logs->append("default", "a", "main", "one\n");
  auto follows = open_streams(h.server->port(), "/api/v1/namespaces/default/pods/a/log?follow=true", 20);
  EXPECT_EQ(h.server->stats().streams, 20u);
  for (auto& f : follows) f->drop();  // as `kubectl logs -f` interrupted
  EXPECT_LT(time_until([&] { return h.server->stats().streams == 0; }, 10s), 5s);
}

TEST(ApiServerHostileClients, StreamsBeyondTheLimitAreAClear429) {
  ServerOptions options;
  options.max_streams = 3;
  Harness h(options);
  auto watches = open_streams(h.server->port(), k_maps + "?watch=1", 3);
  const auto r = h.client->get(k_maps + "?watch=1&timeoutSeconds=1");
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.header("Retry-After"), "1");
  EXPECT_EQ(r.body.value("reason", ""), "TooManyRequests");
  EXPECT_EQ(
      r.body.value("message", ""),
      "Too many requests, please try again later: 3 watches, log streams and exec sessions are open, the "
      "most this server serves");
  EXPECT_EQ(h.client->get(k_maps).status, 200);  // ordinary requests are not streams
}

/// A POST whose body never comes: it holds a request thread until the read timeout.
std::unique_ptr<RawConnection> stalled_post(int port, const std::string& token) {
  auto c = std::make_unique<RawConnection>(port, true);
  std::string head = "POST " + k_maps + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n";
  if (!token.empty()) head += "Authorization: Bearer " + token + "\r\n";
  c->send(head + "Content-Length: 100\r\n\r\n{");
  return c;
}

TEST(ApiServerHostileClients, RequestsBeyondThePoolAndItsQueueAre429) {
  ServerOptions options;
  options.threads = 1;
  options.max_waiting = 1;
  Harness h(options);
  const int port = h.server->port();
  auto serving = stalled_post(port, k_test_token);
  EXPECT_LT(time_until([&] { return h.server->stats().busy == 1; }, 5s), 5s);
  auto waiting = stalled_post(port, k_test_token);
  std::this_thread::sleep_for(200ms);
  const auto r = h.client->get(k_maps);
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.header("Retry-After"), "1");
  EXPECT_EQ(r.body.value("message", ""), "Too many requests, please try again later.");
  serving->drop();
  waiting->drop();
  EXPECT_LT(time_until([&] { return h.server->stats().busy == 0; }, 5s), 5s);
  EXPECT_EQ(h.client->get(k_maps).status, 200);
}

TEST(ApiServerHostileClients, RequestsWithoutTheTokenNeverTakeARequestThread) {
  ServerOptions options;
  options.threads = 1;
  Harness h(options);
  std::vector<std::unique_ptr<RawConnection>> stalled;
  for (int i = 0; i < 20; ++i) {
    stalled.push_back(stalled_post(h.server->port(), ""));
    const auto reply = stalled.back()->receive(5s, "}");
    EXPECT_EQ(status_of(reply), 401) << reply;  // at once, without waiting for the body
    EXPECT_EQ(body_of(reply).value("reason", ""), "Unauthorized");
  }
  EXPECT_EQ(h.server->stats().busy, 0u);
  EXPECT_EQ(h.client->get(k_maps).status, 200);
}

TEST(ApiServerHostileClients, TheAccessLogLimitsRequestsWithoutTheTokenAndEscapesPaths) {
  std::mutex mutex;
  std::vector<std::string> lines;
  ServerOptions options;
  options.access_log = [&](const std::string& line) {
    std::lock_guard lock(mutex);
    lines.push_back(line);
  };
  options.access_log_limit = {5, 10};
  Harness h(options);
  const int port = h.server->port();
  for (int i = 0; i < 200; ++i) {
    RawConnection c(port, true);
    c.send("GET /api/v1/x%0aGET%20/forged%20200 HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_EQ(status_of(c.receive(5s, "}")), 401);
  }
  ASSERT_EQ(h.client->get(k_maps).status, 200);
  std::lock_guard lock(mutex);
  EXPECT_LT(lines.size(), 60u);  // the burst and what the rate let through, not 200
  EXPECT_EQ(lines.front(), "GET /api/v1/x\\x0aGET /forged 200 401");
  EXPECT_EQ(lines.back(), "GET " + k_maps + " 200");
  bool noted = false;
  for (const auto& l : lines) {
    EXPECT_EQ(l.find('\n'), std::string::npos);
    noted = noted || l.find("requests without the token not logged") != std::string::npos;
  }
  EXPECT_TRUE(noted);
}

TEST(ApiServerHostileClients, ABodyOnAGetIsNeverReadAsTheNextRequest) {
  Harness h;
  ASSERT_EQ(h.client->post(k_maps, json{{"metadata", {{"name", "victim"}}}}).status, 201);
  const std::string smuggled = "DELETE " + k_maps + "/victim HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                               std::string(k_test_token) + "\r\n\r\n";
  RawConnection c(h.server->port(), true);
  std::string head = get_head(k_maps, k_test_token);
  head.insert(head.size() - 2, "Content-Length: " + std::to_string(smuggled.size()) + "\r\n");
  c.send(head + smuggled);
  const auto reply = c.receive(5s);
  EXPECT_EQ(status_of(reply), 200);
  EXPECT_EQ(reply.find("HTTP/1.1 ", 1), std::string::npos) << reply;  // one answer, then the end
  EXPECT_EQ(h.client->get(k_maps + "/victim").status, 200);
}

TEST(ApiServerHostileClients, EveryErrorHasAStatusBody) {
  Harness h;
  struct Case {
    std::string name;
    std::string request;
    int status;
    std::string message;
  };
  const std::string auth = "Authorization: Bearer " + std::string(k_test_token) + "\r\n";
  const std::vector<Case> cases = {
      {"a malformed request line", "GET /api\r\n\r\n", 400, "the request line is malformed"},
      {"a method httplib does not route", "OPTIONS /api HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n", 404,
       "the server could not find the requested resource"},
      {"a bad limit", "GET " + k_maps + "?limit=ten HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n", 400,
       "strconv.ParseInt: parsing \"ten\": invalid syntax"},
      {"a bad timeoutSeconds",
       "GET " + k_maps + "?watch=1&timeoutSeconds=1e9 HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n", 400,
       "strconv.ParseInt: parsing \"1e9\": invalid syntax"},
      {"a malformed chunk",
       "POST " + k_maps + " HTTP/1.1\r\nHost: x\r\n" + auth +
           "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
       400,
       "the body of the request could not be read: it was shorter than announced, malformed, or too slow"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    RawConnection conn(h.server->port(), true);
    conn.send(c.request);
    const auto reply = conn.receive(5s, "}");
    EXPECT_EQ(status_of(reply), c.status) << reply;
    const auto body = body_of(reply);
    EXPECT_EQ(body.value("kind", ""), "Status") << reply;
    EXPECT_EQ(body.value("message", ""), c.message);
  }
}

TEST(ApiServerHostileClients, AHugeTimeoutSecondsIsAccepted) {
  Harness h;
  RawConnection c(h.server->port(), true);
  c.send(get_head(k_maps + "?watch=1&timeoutSeconds=9223372036854775807", k_test_token));
  EXPECT_EQ(status_of(c.receive(5s, "\r\n\r\n")), 200);
  EXPECT_EQ(h.server->stats().streams, 1u);
}

}  // namespace
}  // namespace kpt::apiserver::testing
