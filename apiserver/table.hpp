#pragma once

#include "apiserver/resources.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kpt::apiserver {

/// Kubernetes' duration.HumanDuration ("45s", "3m20s", "5h", "12d", "2y40d").
std::string human_duration(std::int64_t seconds);
/// Seconds since an RFC 3339 UTC timestamp (0 when it does not parse).
std::int64_t age_seconds(const std::string& rfc3339, std::int64_t now_epoch);
/// Evaluates the simple JSONPath of additionalPrinterColumns (".status.conditions[-1:].type").
nlohmann::json eval_json_path(const nlohmann::json& object, const std::string& path);

struct TableOptions {
  bool include_columns = true;  ///< false for watch events after the first
  bool include_object = false;  ///< includeObject=Object: full objects; else PartialObjectMetadata
  std::int64_t now_epoch = 0;   ///< for AGE cells
};

/// A meta.k8s.io/v1 Table of `objects` with the columns `kubectl get` shows for the resource.
nlohmann::json to_table(const ResourceInfo& res, const std::vector<nlohmann::json>& objects,
                        const nlohmann::json& list_metadata, const TableOptions& options);

}  // namespace kpt::apiserver
