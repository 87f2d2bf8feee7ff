// The Store over each Storage (in memory, SQLite): one suite, so both run the same Store code.
#include "apiserver/store.hpp"

#include "apiserver/storage.hpp"
#include "tests/support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <sys/stat.h>

#include <chrono>
#include <memory>

namespace kpt::apiserver {
namespace {

using nlohmann::json;

/// Lets a test hand one memory storage to successive Stores, as a database file outlives a server.
class SharedStorage final : public Storage {
 public:
  explicit SharedStorage(std::shared_ptr<Storage> inner) : m_inner(std::move(inner)) {}
  Expected<void> append(const Revision& r) override { return m_inner->append(r); }
  [[nodiscard]] Expected<std::vector<Revision>> revisions() const override { return m_inner->revisions(); }
  Expected<void> compact(std::uint64_t upto) override { return m_inner->compact(upto); }
  [[nodiscard]] std::uint64_t compacted() const override { return m_inner->compacted(); }

 private:
  std::shared_ptr<Storage> m_inner;
};

class FailingStorage final : public Storage {
 public:
  Expected<void> append(const Revision&) override { return make_error(ErrorCode::io, "disk full"); }
  [[nodiscard]] Expected<std::vector<Revision>> revisions() const override { return std::vector<Revision>{}; }
  Expected<void> compact(std::uint64_t) override { return {}; }
  [[nodiscard]] std::uint64_t compacted() const override { return 0; }
};

json pod(const std::string& name, int generation = 0) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", {{"generation", generation}}}};
}

const std::string k_pods = "/pods";

class StoreOverStorage : public ::testing::TestWithParam<std::string> {
 protected:
  /// A new Store on the same stored revisions: what a restarted server sees.
  std::unique_ptr<Store> reopen(StoreOptions options = {}) {
    auto store = std::make_unique<Store>(options);
    auto opened = store->open(storage());
    EXPECT_TRUE(opened) << (opened ? "" : opened.error().message);
    return store;
  }

  std::unique_ptr<Storage> storage() {
    if (GetParam() == "memory") return std::make_unique<SharedStorage>(m_memory);
    auto sqlite = open_sqlite_storage(m_dir.file("objects.db"));
    EXPECT_TRUE(sqlite) << (sqlite ? "" : sqlite.error().message);
    return sqlite ? std::move(*sqlite) : make_memory_storage();
  }

  static Expected<json> put(Store& store, const json& obj) {
    return store.mutate(k_pods, "default", obj["metadata"]["name"], [&](const auto&) { return obj; });
  }

  kpt::testing::TempDir m_dir{"kpt-store"};
  std::shared_ptr<Storage> m_memory = make_memory_storage();
};

TEST_P(StoreOverStorage, ObjectsAndTheResourceVersionSurviveAReopen) {
  std::string a_rv;
  std::uint64_t rv = 0;
  {
    auto store = reopen();
    ASSERT_TRUE(put(*store, pod("a")));
    ASSERT_TRUE(put(*store, pod("b")));
    auto a = put(*store, pod("a", 2));
    ASSERT_TRUE(a);
    a_rv = a->at("metadata").at("resourceVersion");
    ASSERT_TRUE(store->erase(k_pods, "default", "b"));
    rv = store->current_rv();
  }
  auto store = reopen();
  EXPECT_EQ(store->current_rv(), rv);
  const auto a = store->get(k_pods, "default", "a");
  ASSERT_TRUE(a);
  EXPECT_EQ((*a)["metadata"]["resourceVersion"], a_rv);
  EXPECT_EQ((*a)["spec"]["generation"], 2);
  EXPECT_FALSE(store->get(k_pods, "default", "b"));
  EXPECT_EQ(store->list(k_pods, "").size(), 1U);
  auto next = put(*store, pod("c"));
  ASSERT_TRUE(next);
  EXPECT_EQ((*next)["metadata"]["resourceVersion"], std::to_string(rv + 1));
}

TEST_P(StoreOverStorage, AWatchFromARevisionReplaysTheStoredChangesAfterAReopen) {
  std::uint64_t from = 0;
  {
    auto store = reopen();
    ASSERT_TRUE(put(*store, pod("a")));
    from = store->current_rv();
    ASSERT_TRUE(put(*store, pod("a", 1)));
    ASSERT_TRUE(put(*store, pod("b")));
    ASSERT_TRUE(store->erase(k_pods, "default", "a"));
  }
  auto store = reopen();
  auto events = store->events_after(k_pods, "default", from);
  ASSERT_TRUE(events);
  ASSERT_EQ(events->size(), 3U);
  EXPECT_EQ((*events)[0].type, "MODIFIED");
  EXPECT_EQ((*events)[0].previous["spec"]["generation"], 0);
  EXPECT_EQ((*events)[1].type, "ADDED");
  EXPECT_EQ((*events)[1].object["metadata"]["name"], "b");
  EXPECT_EQ((*events)[2].type, "DELETED");
  EXPECT_EQ((*events)[2].rv, store->current_rv());
}

TEST_P(StoreOverStorage, CompactionKeepsTheLatestOfEachKeyAndAnOlderWatchIsGone) {
  StoreOptions small;
  small.history_window = 5;
  {
    auto store = reopen(small);
    ASSERT_TRUE(put(*store, pod("kept")));
    ASSERT_TRUE(put(*store, pod("deleted")));
    ASSERT_TRUE(store->erase(k_pods, "default", "deleted"));
    for (int i = 0; i < 2500; ++i) ASSERT_TRUE(put(*store, pod("busy", i)));
  }
  auto stored = storage()->revisions();
  ASSERT_TRUE(stored);
  EXPECT_LT(stored->size(), 1100U);  // the latest per key and the revisions since the last compaction
  auto store = reopen(small);
  EXPECT_TRUE(store->get(k_pods, "default", "kept"));
  EXPECT_FALSE(store->get(k_pods, "default", "deleted"));
  EXPECT_EQ((*store->get(k_pods, "default", "busy"))["spec"]["generation"], 2499);
  auto old = store->events_after(k_pods, "default", 2);
  ASSERT_FALSE(old);
  EXPECT_EQ(old.error().http_status, 410);
  EXPECT_EQ(old.error().message,
            "too old resource version: 2 (" + std::to_string(store->current_rv() - 4) + ")");
  auto recent = store->events_after(k_pods, "default", store->current_rv() - 2);
  ASSERT_TRUE(recent);
  EXPECT_EQ(recent->size(), 2U);
}

// Found by the local cluster's soak: a server that had compacted away an object's creation but kept its later
// deletion could not start again (the replay read the deleted object's metadata from nothing).
TEST_P(StoreOverStorage, ADeletionWhoseCreationWasCompactedAwayReplays) {
  StoreOptions small;
  small.history_window = 5;
  std::uint64_t deleted_at = 0;
  {
    auto store = reopen(small);
    auto owned = pod("owned");
    owned["metadata"]["ownerReferences"] = json::array({{{"uid", "owner-1"}, {"kind", "PyTorchJob"}}});
    ASSERT_TRUE(put(*store, owned));
    ASSERT_TRUE(put(*store, pod("changed")));
    // The first compaction marks revision 1000; the deletion lands just after it, the creation before.
    for (int i = 0; store->current_rv() < 1001; ++i) ASSERT_TRUE(put(*store, pod("busy", i)));
    ASSERT_TRUE(store->erase(k_pods, "default", "owned"));
    deleted_at = store->current_rv();
    ASSERT_TRUE(put(*store, pod("changed", 7)));
    for (int i = 0; i < 50; ++i) ASSERT_TRUE(put(*store, pod("busy", 2000 + i)));
  }
  auto stored = storage()->revisions();
  ASSERT_TRUE(stored);
  std::size_t owned_rows = 0;
  for (const auto& r : *stored) {
    if (r.key.find("owned") == std::string::npos) continue;
    ++owned_rows;
    EXPECT_TRUE(r.deleted);
    EXPECT_EQ(r.id, deleted_at);
  }
  ASSERT_EQ(owned_rows, 1U) << "the case needs a deletion without its creation";
  auto store = reopen(small);
  EXPECT_FALSE(store->get(k_pods, "default", "owned"));
  EXPECT_EQ((*store->get(k_pods, "default", "changed"))["spec"]["generation"], 7);
  EXPECT_EQ(store->list(k_pods, "default").size(), 2U);
}

TEST_P(StoreOverStorage, ADryRunStoresNothing) {
  {
    auto store = reopen();
    auto dry = store->mutate(
        k_pods, "default", "a", [](const auto&) { return pod("a"); }, true);
    ASSERT_TRUE(dry);
  }
  auto stored = storage()->revisions();
  ASSERT_TRUE(stored);
  EXPECT_TRUE(stored->empty());
  EXPECT_FALSE(reopen()->get(k_pods, "default", "a"));
}

json event(const std::string& name) {
  return {{"metadata", {{"name", name}, {"namespace", "default"}}}, {"reason", "Started"}};
}

TEST_P(StoreOverStorage, AnEventExpiresItsTtlAfterItsLastWriteAndTheExpiryOutlivesARestart) {
  const std::string events = "/events";
  const auto put_event = [&](Store& store, const std::string& name) {
    return store.mutate(events, "default", name, [&](const auto&) { return event(name); });
  };
  auto clock =
      std::make_shared<util::FakeClock>(std::chrono::system_clock::time_point(std::chrono::hours(500000)));
  StoreOptions options;
  options.ttl = {{events, std::chrono::hours(1)}};
  options.clock = clock;
  {
    auto store = reopen(options);
    ASSERT_TRUE(put_event(*store, "first"));
    ASSERT_TRUE(put_event(*store, "rewritten"));
    ASSERT_TRUE(put(*store, pod("pod")));
    clock->advance(std::chrono::minutes(30));
    ASSERT_TRUE(put_event(*store, "rewritten"));  // its hour starts again
    EXPECT_EQ(store->expire(), 0U);
    clock->advance(std::chrono::minutes(29));
    EXPECT_EQ(store->expire(), 0U);
  }
  clock->advance(std::chrono::minutes(2));  // 61 minutes after the first writes, while the server is down
  {
    auto store = reopen(options);
    const std::uint64_t before = store->current_rv();
    EXPECT_EQ(store->expire(), 1U);
    EXPECT_FALSE(store->get(events, "default", "first"));
    EXPECT_TRUE(store->get(events, "default", "rewritten"));
    EXPECT_TRUE(store->get(k_pods, "default", "pod"));
    const auto changes = store->events_after(events, "", before);
    ASSERT_TRUE(changes);
    ASSERT_EQ(changes->size(), 1U);
    EXPECT_EQ(changes->front().type, "DELETED");
    EXPECT_EQ(changes->front().object["metadata"]["name"], "first");
  }
  clock->advance(std::chrono::minutes(30));
  EXPECT_EQ(reopen(options)->expire(), 1U);
  auto store = reopen(options);
  EXPECT_EQ(store->list(events, "").size(), 0U);
  EXPECT_EQ(store->list(k_pods, "").size(), 1U);
}

TEST(StoreTtl, AResourceWithoutATtlNeverExpires) {
  auto clock =
      std::make_shared<util::FakeClock>(std::chrono::system_clock::time_point(std::chrono::hours(1)));
  StoreOptions options;
  options.clock = clock;
  Store store(options);
  ASSERT_TRUE(store.mutate("/events", "default", "e", [](const auto&) { return event("e"); }));
  clock->advance(std::chrono::hours(24 * 365));
  EXPECT_EQ(store.expire(), 0U);
  EXPECT_TRUE(store.get("/events", "default", "e"));
}

TEST(SqliteStorage, ADatabaseFromBeforeExpiriesOpensWithNone) {
  kpt::testing::TempDir dir{"kpt-store"};
  const std::string path = dir.file("objects.db");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "CREATE TABLE revisions (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL, "
                         "created INTEGER NOT NULL, deleted INTEGER NOT NULL, value BLOB NOT NULL, "
                         "prev_revision INTEGER NOT NULL);"
                         "INSERT INTO revisions VALUES (1, '/events/default/e', 1, 0, '{}', 0);",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto storage = open_sqlite_storage(path);
  ASSERT_TRUE(storage) << storage.error().message;
  auto revisions = (*storage)->revisions();
  ASSERT_TRUE(revisions);
  ASSERT_EQ(revisions->size(), 1U);
  EXPECT_EQ(revisions->front().expires_at, 0);
  Revision next;
  next.id = 2;
  next.key = "/events/default/f";
  next.created = true;
  next.value = "{}";
  next.expires_at = 42;
  ASSERT_TRUE((*storage)->append(next));
  EXPECT_EQ((*storage)->revisions()->back().expires_at, 42);
}

INSTANTIATE_TEST_SUITE_P(Storages, StoreOverStorage, ::testing::Values("memory", "sqlite"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(Store, AWriteTheStorageRefusesIsNotAcknowledgedNorServed) {
  Store store;
  ASSERT_TRUE(store.open(std::make_unique<FailingStorage>()));
  const auto rv = store.current_rv();
  auto written = store.mutate(k_pods, "default", "a", [](const auto&) { return pod("a"); });
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().http_status, 500);
  EXPECT_EQ(written.error().message, "storing the object: disk full");
  EXPECT_FALSE(store.get(k_pods, "default", "a"));
  EXPECT_EQ(store.current_rv(), rv);
}

TEST(SqliteStorage, TheDatabaseIsPrivateEvenWhereAnOlderReleaseLeftItReadable) {
  // It holds Secrets; SQLite alone creates it 0644 (less the umask), and its -wal and -shm alike.
  kpt::testing::TempDir dir("kpt-store");
  const auto path = dir.file("objects.db");
  const auto mode = [](const std::string& file) {
    struct stat st {};
    return ::stat(file.c_str(), &st) == 0 ? st.st_mode & 0777 : 0u;
  };
  {
    auto storage = open_sqlite_storage(path);
    ASSERT_TRUE(storage) << storage.error().message;
    EXPECT_EQ(mode(path), 0600u);
    EXPECT_EQ(mode(path + "-wal"), 0600u);
    EXPECT_EQ(mode(path + "-shm"), 0600u);
  }
  ::chmod(path.c_str(), 0644);
  auto reopened = open_sqlite_storage(path);
  ASSERT_TRUE(reopened) << reopened.error().message;
  EXPECT_EQ(mode(path), 0600u);
}

TEST(SqliteStorage, AnUnopenableDatabaseIsAnError) {
  kpt::testing::TempDir dir("kpt-store");
  auto storage = open_sqlite_storage(dir.file("missing/objects.db"));
  ASSERT_FALSE(storage);
  EXPECT_EQ(storage.error().message,
            "opening the database '" + dir.file("missing/objects.db") + "': unable to open database file");
}

}  // namespace
}  // namespace kpt::apiserver
