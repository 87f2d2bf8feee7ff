#pragma once

#include "controller/expectations.hpp"
#include "controller/object_cache.hpp"
#include "tests/support/fake_api_client.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kpt::controller {

/// Plays the informers for one job in namespace "ns": a full re-list of what the fake holds goes
/// into the child caches, the creations and deletions it shows meet the expectations, and the job
/// (`job_resource`/`job_name`, when the fake has it) goes into the job cache.
inline void replay_informers(const kpt::testing::FakeApiClient& api, ChildCache& pods, ChildCache& services,
                             JobCache& jobs, Expectations& expectations, const std::string& job_resource,
                             const std::string& job_name) {
  for (auto* cache : {&pods, &services}) {
    const std::string res = cache == &pods ? "pods" : "services";
    std::vector<nlohmann::json> items;
    for (const auto& name : api.names(res, "ns")) items.push_back(api.object(res, "ns", name));
    for (const auto& change : cache->list_page(items, true, true)) {
      if (change.created) expectations.observe_creation(change.job_key);
      if (change.deleted) expectations.observe_deletion(change.job_key);
    }
  }
  std::vector<nlohmann::json> listed;
  if (auto job = api.object(job_resource, "ns", job_name); !job.is_null()) listed.push_back(job);
  (void)jobs.list_page(listed, true, true);
}

}  // namespace kpt::controller
