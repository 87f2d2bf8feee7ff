// Deletion and owner-reference garbage collection, done synchronously inside the request that
// starts it, with the decisions of kube-controller-manager's garbage collector
// (kubernetes v1.32 pkg/controller/garbagecollector/garbagecollector.go: attemptToDeleteItem,
// classifyReferences, processDeletingDependentsItem).
#include "apiserver/resource_ops.hpp"
#include "model/k8s/object_meta.hpp"
#include "util/json_access.hpp"
#include "util/time.hpp"

#include <algorithm>
#include <deque>
#include <variant>

namespace kpt::apiserver {

namespace {

using json = nlohmann::json;
using model::k8s::meta_string;

constexpr const char* k_foreground_finalizer = "foregroundDeletion";

json owner_refs(const json& obj) {
  if (!obj.contains("metadata") || !obj["metadata"].is_object()) return json::array();
  const auto refs = obj["metadata"].value("ownerReferences", json::array());
  return refs.is_array() ? refs : json::array();
}

bool has_finalizer(const json& obj, const std::string& finalizer) {
  if (!obj.contains("metadata") || !obj["metadata"].is_object()) return false;
  const auto finalizers = obj["metadata"].value("finalizers", json::array());
  return finalizers.is_array() &&
         std::find(finalizers.begin(), finalizers.end(), finalizer) != finalizers.end();
}

bool being_deleted(const json& obj) { return obj["metadata"].contains("deletionTimestamp"); }

/// An owner that waits, in foreground deletion, for its blocking dependents to go.
bool deleting_dependents(const json& obj) {
  return being_deleted(obj) && has_finalizer(obj, k_foreground_finalizer);
}

/// What each owner reference of a dependent points at, as classifyReferences sorts them.
struct OwnerClasses {
  std::vector<std::string> solid, dangling, waiting;  ///< owner uids
};

OwnerClasses classify_owners(const Store& store, const json& dependent) {
  OwnerClasses out;
  const std::string ns = meta_string(dependent, "namespace");
  for (const auto& ref : owner_refs(dependent)) {
    if (!ref.is_object() || !ref.contains("uid") || !ref["uid"].is_string()) continue;
    const std::string uid = ref["uid"];
    const auto owner = store.find_uid(uid);
    const std::string owner_ns = owner ? owner->ref.ns : std::string{};
    // A namespaced owner counts only in its dependent's own namespace; a cluster-scoped dependent
    // naming a namespaced owner is unresolvable and, as upstream since v1.20, never collected.
    if (!owner || (!ns.empty() && !owner_ns.empty() && owner_ns != ns)) {
      out.dangling.push_back(uid);
    } else if (deleting_dependents(owner->object)) {
      out.waiting.push_back(uid);
    } else {
      out.solid.push_back(uid);
    }
  }
  return out;
}

bool blocks_owner(const json& dependent, const std::string& owner_uid) {
  for (const auto& ref : owner_refs(dependent)) {
    if (ref.is_object() && util::string_at(ref, "uid") == owner_uid && ref.value("blockOwnerDeletion", false))
      return true;
  }
  return false;
}

/// Drops the owner references to `uids` from one object.
void strip_owners(Store& store, const Store::Ref& dep, const std::vector<std::string>& uids) {
  (void)store.mutate(dep.resource, dep.ns, dep.name, [&](const std::optional<json>& c) -> Expected<json> {
    if (!c) return not_found("", dep.resource, dep.name);
    json out = *c;
    json owners = json::array();
    for (const auto& o : owner_refs(out)) {
      const std::string uid = o.is_object() ? util::string_at(o, "uid") : std::string{};
      if (std::find(uids.begin(), uids.end(), uid) == uids.end()) owners.push_back(o);
    }
    out["metadata"]["ownerReferences"] = owners;
    if (owners.empty()) out["metadata"].erase("ownerReferences");
    return out;
  });
}

Error precondition_failed(const ResourceInfo& res, const std::string& name, const std::string& what,
                          const std::string& want, const std::string& have) {
  return conflict(res.group, res.plural, name,
                  "Precondition failed: " + what + " in precondition: " + want + ", " + what +
                      " in object meta: " + have);
}

}  // namespace

/// A dependent whose owners are to be resolved, or an owner in foreground deletion to re-check.
struct GcWork {
  struct CheckOwner {
    std::string uid;
  };
  std::deque<std::variant<Store::Ref, CheckOwner>> items;
  std::size_t steps = 0;
};

Expected<DeleteResult> ResourceOps::remove(const ResourceInfo& res, const std::string& ns,
                                           const std::string& name, const DeleteOptions& options) {
  GcWork work;
  auto result = remove_queued(res, ns, name, options, work);
  drain(work);
  if (result && result.value().pending && !m_store.get(res.storage_key(), ns, name))
    result.value().pending = false;  // its dependents went while the work drained
  return result;
}

Expected<DeleteResult> ResourceOps::remove_queued(const ResourceInfo& res, const std::string& ns,
                                                  const std::string& name, const DeleteOptions& options,
                                                  GcWork& work) {
  auto cur = m_store.get(res.storage_key(), ns, name);
  if (!cur) return not_found(res.group, res.plural, name);
  if (!options.precondition_uid.empty() && options.precondition_uid != meta_string(*cur, "uid")) {
    return precondition_failed(res, name, "UID", options.precondition_uid, meta_string(*cur, "uid"));
  }
  if (!options.precondition_rv.empty() && options.precondition_rv != meta_string(*cur, "resourceVersion")) {
    return precondition_failed(res, name, "ResourceVersion", options.precondition_rv,
                               meta_string(*cur, "resourceVersion"));
  }
  if (options.dry_run) return DeleteResult{*cur, false};
  const std::string uid = meta_string(*cur, "uid");
  const bool foreground = options.propagation == "Foreground";
  const auto finalizers = (*cur)["metadata"].value("finalizers", json::array());
  if (foreground || (finalizers.is_array() && !finalizers.empty())) {
    auto marked = mark_deleting(res, ns, name, foreground);
    if (!marked) return marked.error();
    if (options.propagation == "Orphan") orphan_dependents(uid);
    if (foreground) {
      for (auto& dep : m_store.dependents_of(uid)) work.items.emplace_back(std::move(dep));
      work.items.emplace_back(GcWork::CheckOwner{uid});
    }
    return DeleteResult{std::move(marked.value()), true};
  }
  if (options.propagation == "Orphan") orphan_dependents(uid);
  auto erased = m_store.erase(res.storage_key(), ns, name);
  if (!erased)
    return erased.error().http_status == 404 ? not_found(res.group, res.plural, name) : erased.error();
  after_erase(res, *erased, work);
  (*erased)["apiVersion"] = res.group_version();
  return DeleteResult{std::move(erased.value()), false};
}

Expected<json> ResourceOps::mark_deleting(const ResourceInfo& res, const std::string& ns,
                                          const std::string& name, bool foreground) {
  return m_store.mutate(res.storage_key(), ns, name, [&](const std::optional<json>& c) -> Expected<json> {
    if (!c) return not_found(res.group, res.plural, name);
    json out = *c;
    auto& meta = out["metadata"];
    if (!meta.contains("deletionTimestamp")) meta["deletionTimestamp"] = util::now_rfc3339();
    if (foreground && !has_finalizer(out, k_foreground_finalizer)) {
      if (!meta.contains("finalizers") || !meta["finalizers"].is_array()) meta["finalizers"] = json::array();
      meta["finalizers"].push_back(k_foreground_finalizer);
    }
    return out;
  });
}

void ResourceOps::collect_after_erase(const ResourceInfo& res, const json& obj) {
  GcWork work;
  after_erase(res, obj, work);
  drain(work);
}

void ResourceOps::collect_if_dangling(const ResourceInfo& res, const json& obj) {
  GcWork work;
  work.items.emplace_back(
      Store::Ref{res.storage_key(), meta_string(obj, "namespace"), meta_string(obj, "name")});
  drain(work);
}

void ResourceOps::after_erase(const ResourceInfo& res, const json& obj, GcWork& work) {
  const std::string name = meta_string(obj, "name");
  if (res.kind == "CustomResourceDefinition" && res.group == "apiextensions.k8s.io") {
    const auto spec = obj.value("spec", json::object());
    const std::string key =
        util::string_at(spec, "group") + "/" + util::string_at(util::member(spec, "names"), "plural");
    m_registry.remove_crd(name);
    for (const auto& ref : m_store.refs_of(key, "")) {
      if (auto gone = m_store.erase(ref.resource, ref.ns, ref.name)) {
        for (auto& dep : m_store.dependents_of(meta_string(*gone, "uid"))) work.items.emplace_back(dep);
      }
    }
  }
  if (res.kind == "Namespace" && res.group.empty()) {
    std::vector<std::string> done;
    for (const auto& r : m_registry.all()) {
      if (!r->namespaced || std::find(done.begin(), done.end(), r->storage_key()) != done.end()) continue;
      done.push_back(r->storage_key());
      for (const auto& ref : m_store.refs_of(r->storage_key(), name))
        (void)remove_queued(*r, ref.ns, ref.name, DeleteOptions{}, work);
    }
  }
  for (auto& dep : m_store.dependents_of(meta_string(obj, "uid"))) work.items.emplace_back(std::move(dep));
  for (const auto& ref : owner_refs(obj)) {
    if (ref.is_object() && ref.contains("uid") && ref["uid"].is_string())
      work.items.emplace_back(GcWork::CheckOwner{ref["uid"].get<std::string>()});
  }
}

void ResourceOps::orphan_dependents(const std::string& owner_uid) {
  if (owner_uid.empty()) return;
  for (const auto& dep : m_store.dependents_of(owner_uid)) strip_owners(m_store, dep, {owner_uid});
}

void ResourceOps::attempt_to_delete(const Store::Ref& ref, GcWork& work) {
  const auto obj = m_store.get(ref.resource, ref.ns, ref.name);
  if (!obj || owner_refs(*obj).empty()) return;
  if (being_deleted(*obj)) {
    if (deleting_dependents(*obj)) work.items.emplace_back(GcWork::CheckOwner{meta_string(*obj, "uid")});
    return;
  }
  const auto owners = classify_owners(m_store, *obj);
  if (!owners.solid.empty()) {
    if (owners.dangling.empty() && owners.waiting.empty()) return;
    auto gone = owners.dangling;
    gone.insert(gone.end(), owners.waiting.begin(), owners.waiting.end());
    strip_owners(m_store, ref, gone);
    for (const auto& uid : owners.waiting) work.items.emplace_back(GcWork::CheckOwner{uid});
    return;
  }
  const auto res = m_registry.find_any_version(ref.resource);
  if (!res) return;  // its kind is no longer served: the CRD's deletion removed it
  DeleteOptions options;
  if (!owners.waiting.empty() && !m_store.dependents_of(meta_string(*obj, "uid")).empty()) {
    options.propagation = "Foreground";  // its owner waits: so must its own dependents' deletion
  } else if (has_finalizer(*obj, "orphan")) {
    options.propagation = "Orphan";
  } else if (has_finalizer(*obj, k_foreground_finalizer)) {
    options.propagation = "Foreground";
  }
  (void)remove_queued(*res, ref.ns, ref.name, options, work);
}

void ResourceOps::finish_foreground(const std::string& owner_uid, GcWork& work) {
  const auto owner = m_store.find_uid(owner_uid);
  if (!owner || !deleting_dependents(owner->object)) return;
  bool blocked = false;
  for (auto& dep : m_store.dependents_of(owner_uid)) {
    const auto obj = m_store.get(dep.resource, dep.ns, dep.name);
    if (!obj || !blocks_owner(*obj, owner_uid)) continue;
    blocked = true;
    // Its own deletion, when it ends, re-checks this owner.
    if (!being_deleted(*obj)) work.items.emplace_back(std::move(dep));
  }
  if (blocked) return;
  const auto& where = owner->ref;
  auto released = m_store.mutate(
      where.resource, where.ns, where.name, [&](const std::optional<json>& c) -> Expected<json> {
        if (!c || meta_string(*c, "uid") != owner_uid) return not_found("", where.resource, where.name);
        json out = *c;
        auto& finalizers = out["metadata"]["finalizers"];
        finalizers.erase(std::remove(finalizers.begin(), finalizers.end(), json(k_foreground_finalizer)),
                         finalizers.end());
        if (finalizers.empty()) out["metadata"].erase("finalizers");
        return out;
      });
  if (!released || released.value()["metadata"].contains("finalizers")) return;
  auto erased = m_store.erase(where.resource, where.ns, where.name);
  const auto res = m_registry.find_any_version(where.resource);
  if (erased && res) after_erase(*res, *erased, work);
}

void ResourceOps::drain(GcWork& work) {
  // Each step deletes or rewrites at most one object, so the steps are bounded by what is stored;
  // the cap only guards against two objects that keep re-queueing each other.
  constexpr std::size_t k_max_steps = 1'000'000;
  while (!work.items.empty() && work.steps++ < k_max_steps) {
    auto item = std::move(work.items.front());
    work.items.pop_front();
    if (const auto* ref = std::get_if<Store::Ref>(&item)) {
      attempt_to_delete(*ref, work);
    } else {
      finish_foreground(std::get<GcWork::CheckOwner>(item).uid, work);
    }
  }
}

}  // namespace kpt::apiserver
