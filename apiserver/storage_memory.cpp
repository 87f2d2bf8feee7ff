#include "apiserver/storage.hpp"

#include <map>

namespace kpt::apiserver {

namespace {

class MemoryStorage final : public Storage {
 public:
  Expected<void> append(const Revision& revision) override {
    m_revisions.push_back(revision);
    return {};
  }

  [[nodiscard]] Expected<std::vector<Revision>> revisions() const override { return m_revisions; }

  Expected<void> compact(std::uint64_t upto) override {
    std::map<std::string, std::uint64_t> latest;
    for (const auto& r : m_revisions) latest[r.key] = r.id;
    std::vector<Revision> kept;
    for (auto& r : m_revisions) {
      const bool keep = r.id > upto || (!r.deleted && latest[r.key] == r.id);
      if (keep) kept.push_back(std::move(r));
    }
    m_revisions = std::move(kept);
    m_compacted = std::max(m_compacted, upto);
    return {};
  }

  [[nodiscard]] std::uint64_t compacted() const override { return m_compacted; }

 private:
  std::vector<Revision> m_revisions;
  std::uint64_t m_compacted = 0;
};

}  // namespace

std::unique_ptr<Storage> make_memory_storage() { return std::make_unique<MemoryStorage>(); }

}  // namespace kpt::apiserver
