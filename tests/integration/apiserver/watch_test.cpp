#include "apiserver/api_handler.hpp"
#include "client.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <thread>

namespace kpt::apiserver::testing {
namespace {

using json = nlohmann::json;
const std::string k_pods = "/api/v1/namespaces/default/pods";

std::vector<std::string> types_and_names(const std::vector<json>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) {
    out.push_back(e["type"].get<std::string>() + " " +
                  e["object"]["metadata"].value(
                      "name", std::string("rv=") + e["object"]["metadata"].value("resourceVersion", "")));
  }
  return out;
}

TEST(ApiServerWatch, WatchFromAListResourceVersionDeliversOnlyLaterChanges) {
  Harness h;
  h.client->post(k_pods, pod("a"));
  const std::string rv = h.client->get(k_pods).body["metadata"]["resourceVersion"];
  h.client->post(k_pods, pod("b"));
  h.client->patch(k_pods + "/a", R"({"metadata":{"labels":{"x":"1"}}})", "application/merge-patch+json");
  h.client->del(k_pods + "/b");
  const auto events = h.client->watch(k_pods + "?watch=true&timeoutSeconds=1&resourceVersion=" + rv);
  EXPECT_EQ(types_and_names(events), (std::vector<std::string>{"ADDED b", "MODIFIED a", "DELETED b"}));
}

TEST(ApiServerWatch, WatchWithoutAResourceVersionStartsWithTheCurrentObjects) {
  Harness h;
  h.client->post(k_pods, pod("a", {{"app", "x"}}));
  h.client->post(k_pods, pod("b"));
  const auto events = h.client->watch(k_pods + "?watch=1&timeoutSeconds=1&labelSelector=app%3Dx");
  EXPECT_EQ(types_and_names(events), (std::vector<std::string>{"ADDED a"}));
}

TEST(ApiServerWatch, ObjectsEnteringOrLeavingASelectorAreAddedOrDeletedForTheWatch) {
  Harness h;
  h.client->post(k_pods, pod("a", {{"app", "x"}}));
  h.client->post(k_pods, pod("b", {{"app", "y"}}));
  const std::string rv = h.client->get(k_pods).body["metadata"]["resourceVersion"];
  h.client->patch(k_pods + "/a", R"({"metadata":{"labels":{"app":"y"}}})", "application/merge-patch+json");
  h.client->patch(k_pods + "/b", R"({"metadata":{"labels":{"app":"x"}}})", "application/merge-patch+json");
  h.client->patch(k_pods + "/b", R"({"metadata":{"labels":{"extra":"1"}}})", "application/merge-patch+json");
  const auto events =
      h.client->watch(k_pods + "?watch=1&timeoutSeconds=1&labelSelector=app%3Dx&resourceVersion=" + rv);
  EXPECT_EQ(types_and_names(events), (std::vector<std::string>{"DELETED a", "ADDED b", "MODIFIED b"}));
}

TEST(ApiServerWatch, WatchSeesChangesMadeWhileItRuns) {
  Harness h;
  const std::string rv = h.client->get(k_pods).body["metadata"]["resourceVersion"];
  std::thread writer([&] {
    Client c(*h.server, h.server->token());
    c.post(k_pods, pod("late"));
  });
  const auto events = h.client->watch(k_pods + "?watch=1&timeoutSeconds=2&resourceVersion=" + rv);
  writer.join();
  EXPECT_EQ(types_and_names(events), (std::vector<std::string>{"ADDED late"}));
}

TEST(ApiServerWatch, ACompactedResourceVersionIsGone) {
  Harness h;
  h.client->post(k_pods, pod("a"));
  const std::string rv = h.client->get(k_pods).body["metadata"]["resourceVersion"];
  h.client->post(k_pods, pod("b"));
  h.server->store().compact();
  const auto events = h.client->watch(k_pods + "?watch=1&timeoutSeconds=1&resourceVersion=" + rv);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["code"], 410);
  EXPECT_EQ(events[0]["reason"], "Expired");
  EXPECT_EQ(events[0]["message"],
            "too old resource version: " + rv + " (" + std::to_string(std::stoi(rv) + 2) + ")");
}

TEST(ApiServerWatch, ABoundedHistoryWindowCompactsOldEvents) {
  ServerOptions opts;
  opts.store.history_window = 3;
  Harness h(opts);
  const std::string rv = h.client->get(k_pods).body["metadata"]["resourceVersion"];
  for (const char* n : {"a", "b", "c", "d"}) h.client->post(k_pods, pod(n));
  const auto events = h.client->watch(k_pods + "?watch=1&timeoutSeconds=1&resourceVersion=" + rv);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["code"], 410);
}

TEST(ApiServerWatch, BookmarksCarryTheLatestResourceVersionWhenAllowed) {
  Harness h;
  h.server->handler().set_bookmark_interval(std::chrono::milliseconds(100));
  const std::string rv = h.client->get(k_pods).body["metadata"]["resourceVersion"];
  const auto events =
      h.client->watch(k_pods + "?watch=1&timeoutSeconds=1&allowWatchBookmarks=true&resourceVersion=" + rv);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.front()["type"], "BOOKMARK");
  EXPECT_EQ(events.front()["object"]["kind"], "Pod");
}

TEST(ApiServerWatch, SendInitialEventsEndsTheListWithAnAnnotatedBookmark) {
  Harness h;
  h.client->post(k_pods, pod("a"));
  const auto events = h.client->watch(
      k_pods + "?watch=1&timeoutSeconds=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["type"], "ADDED");
  EXPECT_EQ(events[1]["type"], "BOOKMARK");
  EXPECT_EQ(events[1]["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"], "true");
}

TEST(ApiServerWatch, TableWatchesSendColumnsOnlyInTheFirstEvent) {
  Harness h;
  h.client->post(k_pods, pod("a"));
  h.client->post(k_pods, pod("b"));
  std::vector<json> events;
  // The client's watch helper sends no Accept; use a raw GET with the Table Accept header.
  auto r = h.client->get(k_pods + "?watch=1&timeoutSeconds=1",
                         "application/json;as=Table;v=v1;g=meta.k8s.io,application/json");
  std::stringstream lines(r.raw);
  for (std::string line; std::getline(lines, line);) events.push_back(json::parse(line));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["object"]["kind"], "Table");
  EXPECT_EQ(events[0]["object"]["columnDefinitions"].size(), 9u);
  EXPECT_TRUE(events[1]["object"]["columnDefinitions"].empty());
  EXPECT_EQ(events[1]["object"]["rows"][0]["cells"][0], "b");
}

TEST(ApiServerWatch, InjectedCutsEndWatchStreamsAfterNEvents) {
  ServerOptions opts;
  opts.faults.cut_watch_after_events = 2;
  Harness h(opts);
  for (const char* n : {"a", "b", "c"}) h.client->post(k_pods, pod(n));
  const auto events = h.client->watch(k_pods + "?watch=1&timeoutSeconds=5");
  EXPECT_EQ(types_and_names(events), (std::vector<std::string>{"ADDED a", "ADDED b"}));
}

TEST(ApiServerWatch, InjectedCompactionMakesEveryOldResourceVersionGone) {
  ServerOptions opts;
  opts.faults.compact_history = true;
  Harness h(opts);
  const std::string rv = h.client->get(k_pods).body["metadata"]["resourceVersion"];
  h.client->post(k_pods, pod("a"));
  const auto events = h.client->watch(k_pods + "?watch=1&timeoutSeconds=1&resourceVersion=" + rv);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["code"], 410);
}

}  // namespace
}  // namespace kpt::apiserver::testing
