#include "apiserver/storage.hpp"

#include <sqlite3.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kpt::apiserver {

namespace {

/// One table of revisions (kine's layout, k3s-io/kine pkg/drivers/generic/generic.go) and the
/// compaction mark. The id is the resourceVersion; AUTOINCREMENT never reuses one after deletes.
constexpr const char* k_schema = R"sql(
CREATE TABLE IF NOT EXISTS revisions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  key TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  value BLOB NOT NULL,
  prev_revision INTEGER NOT NULL,
  expires_at INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS revisions_key_id ON revisions (key, id);
CREATE TABLE IF NOT EXISTS compaction (one INTEGER PRIMARY KEY CHECK (one = 1), revision INTEGER NOT NULL);
INSERT OR IGNORE INTO compaction VALUES (1, 0);
)sql";

/// Databases written before revisions had an expiry gain the column (0: never expires).
constexpr const char* k_has_expiry =
    "SELECT COUNT(*) FROM pragma_table_info('revisions') WHERE name = 'expires_at'";
constexpr const char* k_add_expiry = "ALTER TABLE revisions ADD COLUMN expires_at INTEGER NOT NULL DEFAULT 0";

constexpr const char* k_compact = R"sql(
DELETE FROM revisions WHERE id <= ?1 AND (deleted = 1 OR
  id < (SELECT MAX(r.id) FROM revisions AS r WHERE r.key = revisions.key))
)sql";

class Statement {
 public:
  Statement(sqlite3* db, const char* sql) {
    (void)sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &m_stmt, nullptr);
  }
  ~Statement() { sqlite3_finalize(m_stmt); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  [[nodiscard]] sqlite3_stmt* get() const { return m_stmt; }
  [[nodiscard]] bool ok() const { return m_stmt != nullptr; }

 private:
  sqlite3_stmt* m_stmt = nullptr;
};

class SqliteStorage final : public Storage {
 public:
  SqliteStorage(sqlite3* db, std::string path)
      : m_connection{db},
        m_db(db),
        m_path(std::move(path)),
        m_insert(db,
                 "INSERT INTO revisions (id, key, created, deleted, value, prev_revision, expires_at) "
                 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"),
        m_select(
            db,
            "SELECT id, key, created, deleted, value, prev_revision, expires_at FROM revisions ORDER BY id"),
        m_compact(db, k_compact),
        m_mark(db, "UPDATE compaction SET revision = ?1 WHERE one = 1 AND revision < ?1"),
        m_read_mark(db, "SELECT revision FROM compaction WHERE one = 1") {}

  [[nodiscard]] Expected<void> check_prepared() const {
    for (const Statement* s : {&m_insert, &m_select, &m_compact, &m_mark, &m_read_mark}) {
      if (!s->ok()) return failure("preparing statements");
    }
    return {};
  }

  Expected<void> append(const Revision& r) override {
    sqlite3_stmt* s = m_insert.get();
    sqlite3_reset(s);
    sqlite3_bind_int64(s, 1, static_cast<sqlite3_int64>(r.id));
    sqlite3_bind_text(s, 2, r.key.data(), static_cast<int>(r.key.size()), SQLITE_STATIC);
    sqlite3_bind_int(s, 3, r.created ? 1 : 0);
    sqlite3_bind_int(s, 4, r.deleted ? 1 : 0);
    sqlite3_bind_blob(s, 5, r.value.data(), static_cast<int>(r.value.size()), SQLITE_STATIC);
    sqlite3_bind_int64(s, 6, static_cast<sqlite3_int64>(r.prev_revision));
    sqlite3_bind_int64(s, 7, static_cast<sqlite3_int64>(r.expires_at));
    const int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) return failure("writing revision " + std::to_string(r.id));
    return {};
  }

  [[nodiscard]] Expected<std::vector<Revision>> revisions() const override {
    sqlite3_stmt* s = m_select.get();
    sqlite3_reset(s);
    std::vector<Revision> out;
    int rc = SQLITE_ROW;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      Revision r;
      r.id = static_cast<std::uint64_t>(sqlite3_column_int64(s, 0));
      r.key = reinterpret_cast<const char*>(sqlite3_column_text(s, 1));
      r.created = sqlite3_column_int(s, 2) != 0;
      r.deleted = sqlite3_column_int(s, 3) != 0;
      const auto* blob = static_cast<const char*>(sqlite3_column_blob(s, 4));
      r.value.assign(blob != nullptr ? blob : "", static_cast<std::size_t>(sqlite3_column_bytes(s, 4)));
      r.prev_revision = static_cast<std::uint64_t>(sqlite3_column_int64(s, 5));
      r.expires_at = static_cast<std::int64_t>(sqlite3_column_int64(s, 6));
      out.push_back(std::move(r));
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) return failure("reading revisions");
    return out;
  }

  Expected<void> compact(std::uint64_t upto) override {
    if (sqlite3_exec(m_db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK)
      return failure("compacting");
    const bool done = step_with(m_compact, upto) && step_with(m_mark, upto);
    if (!done) {
      (void)sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
      return failure("compacting to revision " + std::to_string(upto));
    }
    if (sqlite3_exec(m_db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) return failure("compacting");
    return {};
  }

  [[nodiscard]] std::uint64_t compacted() const override {
    sqlite3_stmt* s = m_read_mark.get();
    sqlite3_reset(s);
    std::uint64_t mark = 0;
    if (sqlite3_step(s) == SQLITE_ROW) mark = static_cast<std::uint64_t>(sqlite3_column_int64(s, 0));
    sqlite3_reset(s);
    return mark;
  }

 private:
  bool step_with(const Statement& stmt, std::uint64_t value) {
    sqlite3_stmt* s = stmt.get();
    sqlite3_reset(s);
    sqlite3_bind_int64(s, 1, static_cast<sqlite3_int64>(value));
    const int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE;
  }

  [[nodiscard]] Error failure(const std::string& what) const {
    return make_error(ErrorCode::io, "the database '" + m_path + "': " + what + ": " + sqlite3_errmsg(m_db));
  }

  /// Closes the database after the statements (declared after it) are finalized: sqlite3_close
  /// refuses a database with live statements.
  struct Connection {
    explicit Connection(sqlite3* d) : db(d) {}
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    ~Connection() { sqlite3_close(db); }
    sqlite3* db;
  } m_connection;
  sqlite3* m_db;
  std::string m_path;
  Statement m_insert, m_select, m_compact, m_mark, m_read_mark;
};

/// Adds revisions.expires_at to a database that lacks it; false when SQLite refuses.
bool add_expiry_column(sqlite3* db) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, k_has_expiry, -1, &s, nullptr) != SQLITE_OK) return false;
  const bool has = sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int(s, 0) == 1;
  sqlite3_finalize(s);
  return has || sqlite3_exec(db, k_add_expiry, nullptr, nullptr, nullptr) == SQLITE_OK;
}

/// Makes the database private to the user before SQLite opens it: it holds Secrets. SQLite gives
/// its -wal and -shm files the database's mode; those an older release left readable are fixed too.
void make_private(const std::string& path) {
  if (path.empty() || path == ":memory:" || path.rfind("file:", 0) == 0) return;
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0) ::close(fd);
  for (const std::string& file : {path, path + "-wal", path + "-shm"}) {
    struct stat st {};
    if (::stat(file.c_str(), &st) == 0 && (st.st_mode & 077) != 0) ::chmod(file.c_str(), 0600);
  }
}

}  // namespace

Expected<std::unique_ptr<Storage>> open_sqlite_storage(const std::string& path) {
  make_private(path);
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                      nullptr) != SQLITE_OK) {
    std::string why = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return make_error(ErrorCode::io, "opening the database '" + path + "': " + why);
  }
  sqlite3_busy_timeout(db, 5000);
  // WAL: readers never block the writer; NORMAL: a commit is written to the WAL (not synced) before
  // it returns, which a kill -9 cannot undo. FULL would also fsync each commit against power loss.
  char* err = nullptr;
  const std::string setup = std::string("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;") + k_schema;
  if (sqlite3_exec(db, setup.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string why = err != nullptr ? err : sqlite3_errmsg(db);
    sqlite3_free(err);
    sqlite3_close(db);
    return make_error(ErrorCode::io, "opening the database '" + path + "': " + why);
  }
  if (auto migrated = add_expiry_column(db); !migrated) {
    std::string why = sqlite3_errmsg(db);
    sqlite3_close(db);
    return make_error(ErrorCode::io, "opening the database '" + path + "': " + why);
  }
  auto storage = std::make_unique<SqliteStorage>(db, path);
  if (auto ok = storage->check_prepared(); !ok) return ok.error();
  return std::unique_ptr<Storage>(std::move(storage));
}

}  // namespace kpt::apiserver
