#pragma once

#include "plugin/doctor/doctor_defaults.hpp"
#include "plugin/validate/diagnostic_output.hpp"
#include "plugin/validate/live_schema.hpp"
#include "plugin/validate/validate_runner.hpp"
#include "yaml/input_files.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kpt::plugin {

struct Context;

/// The schemas of the cluster: its CRD, or /openapi/v3 when the user may not read CRDs (401/403).
/// nullopt, with a note on stderr, when neither gives one: validate then uses the carried schemas.
/// `cluster.detection` must be set.
std::optional<LiveSchema> cluster_schema(ClusterDefaults& cluster, const std::filesystem::path& cache_dir,
                                         const Context& ctx);

/// --server-dry-run: every document of `inputs` with apiVersion and kind also goes to the server (its
/// resource found by discovery; a kind the server does not serve is an error); its verdict joins the
/// findings of the document in `report` (which validate_inputs made from the same inputs).
void add_server_findings(kube::ApiClient& api, const std::vector<yaml::InputFile>& inputs,
                         const ValidateSettings& settings, const std::string& ns, Report& report);

}  // namespace kpt::plugin
