// Events expire as kube-apiserver's --event-ttl makes them: a given time after their last write,
// with the expiry stored, so that a restarted server removes what ran out while it was down.
#include "client.hpp"
#include "tests/support/temp_dir.hpp"
#include "util/clock.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace kpt::apiserver::testing {
namespace {

using json = nlohmann::json;
const std::string k_events = "/api/v1/namespaces/default/events";

json event(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Event"},
          {"metadata", {{"name", name}}},
          {"involvedObject", {{"kind", "Pod"}, {"name", "p"}, {"namespace", "default"}}},
          {"reason", "Started"},
          {"type", "Normal"}};
}

ServerOptions with_fake_clock(const std::shared_ptr<util::FakeClock>& clock, const std::string& database) {
  ServerOptions o;
  o.store.clock = clock;
  o.database = database;
  o.expiry_interval = std::chrono::milliseconds(0);  // the test sweeps, between moves of its clock
  return o;
}

TEST(ApiServerEventTtl, AnEventIsGoneAnHourAfterItsLastWriteAcrossARestart) {
  kpt::testing::TempDir dir("kpt-event-ttl");
  auto clock = std::make_shared<util::FakeClock>(std::chrono::system_clock::now());
  {
    Harness h(with_fake_clock(clock, dir.file("objects.db")));
    ASSERT_EQ(h.client->post(k_events, event("early")).status, 201);
    ASSERT_EQ(h.client->post(k_events, event("late")).status, 201);
    clock->advance(std::chrono::minutes(59));
    EXPECT_EQ(h.server->store().expire(), 0U);
    EXPECT_EQ(h.client->get(k_events + "/early").status, 200);
    auto late = h.client->get(k_events + "/late").body;
    late["count"] = 2;
    ASSERT_EQ(h.client->put(k_events + "/late", late).status, 200);  // a write starts its hour again
    clock->advance(std::chrono::minutes(2));
    EXPECT_EQ(h.server->store().expire(), 1U);
    EXPECT_EQ(h.client->get(k_events + "/early").status, 404);
    EXPECT_EQ(h.client->get(k_events + "/late").status, 200);
  }
  clock->advance(std::chrono::hours(1));  // "late" runs out while no server runs
  Harness restarted(with_fake_clock(clock, dir.file("objects.db")));
  EXPECT_EQ(restarted.client->get(k_events + "/late").status, 404);
  EXPECT_EQ(restarted.client->get(k_events).body["items"], json::array());
}

TEST(ApiServerEventTtl, TheServerSweepsExpiredEventsOnItsOwn) {
  ServerOptions o;
  o.event_ttl = std::chrono::seconds(1);
  o.expiry_interval = std::chrono::milliseconds(100);
  Harness h(o);
  const auto created = std::chrono::steady_clock::now();
  ASSERT_EQ(h.client->post(k_events, event("brief")).status, 201);
  EXPECT_EQ(h.client->get(k_events + "/brief").status, 200);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (h.client->get(k_events + "/brief").status == 200 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(h.client->get(k_events + "/brief").status, 404);
  EXPECT_GE(std::chrono::steady_clock::now() - created, std::chrono::seconds(1));  // never before its TTL
}

}  // namespace
}  // namespace kpt::apiserver::testing
