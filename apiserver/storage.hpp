#pragma once

#include "util/expected.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kpt::apiserver {

/// One row of the revision log, the way kine (k3s) keeps Kubernetes objects in SQL: every write
/// appends a revision, and its id is the object's resourceVersion.
struct Revision {
  std::uint64_t id = 0;  ///< the resourceVersion; strictly increasing
  std::string key;       ///< "<group>/<plural>/<namespace>/<name>" (group and namespace may be empty)
  bool created = false;  ///< the first revision of the key (ADDED)
  bool deleted = false;  ///< the key's deletion (DELETED); value is the object as it was deleted
  std::string value;     ///< the object's JSON
  std::uint64_t prev_revision = 0;  ///< the key's previous revision; 0 when created
  /// When the object expires, in Unix seconds (a TTL, as etcd leases give Events); 0: never. Stored
  /// with the revision, so that an expiry holds across restarts.
  std::int64_t expires_at = 0;
};

/// Where the Store's revisions live. The Store keeps every object and the watch history in memory
/// and decides everything; a storage only appends, replays and compacts revisions, so the SQLite
/// storage and the in-memory one run the same Store code. Calls are serialized by the Store.
class Storage {
 public:
  virtual ~Storage() = default;
  /// Appends one revision; once this returns, the revision survives a kill -9 of the process.
  virtual Expected<void> append(const Revision& revision) = 0;
  /// Every revision still stored, in id order: the latest of each key, and all newer than compacted().
  [[nodiscard]] virtual Expected<std::vector<Revision>> revisions() const = 0;
  /// Drops revisions with id <= `upto` except the latest of each live key, and remembers `upto`.
  virtual Expected<void> compact(std::uint64_t upto) = 0;
  /// The highest compacted revision (0: none).
  [[nodiscard]] virtual std::uint64_t compacted() const = 0;
};

/// Revisions in a vector: the storage of tests and of servers without a state directory.
std::unique_ptr<Storage> make_memory_storage();

/// Revisions in the SQLite database at `path` (created when missing), in WAL mode with
/// synchronous=NORMAL: a commit is in the WAL file when append() returns, so a killed server loses
/// nothing it acknowledged; only a power loss may lose the last commits, which is not our threat model.
Expected<std::unique_ptr<Storage>> open_sqlite_storage(const std::string& path);

}  // namespace kpt::apiserver
