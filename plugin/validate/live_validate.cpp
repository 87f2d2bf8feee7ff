#include "plugin/validate/live_validate.hpp"

#include "plugin/context.hpp"
#include "plugin/validate/server_dry_run.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <ostream>
#include <tuple>

namespace kpt::plugin {

/// The schemas of the cluster: its CRD, or /openapi/v3 when the user may not read CRDs. nullopt (with
/// a note on stderr) when neither gives one: validate then uses the carried schemas.
std::optional<LiveSchema> cluster_schema(ClusterDefaults& cluster, const std::filesystem::path& cache_dir,
                                         const Context& ctx) {
  const auto& d = *cluster.detection;
  Expected<std::optional<LiveSchema>> live = std::optional<LiveSchema>{};
  if (d.crd) {
    auto from_crd = schema_from_live_crd(*d.crd, cluster.server, cache_dir);
    live = from_crd ? Expected<std::optional<LiveSchema>>(std::optional<LiveSchema>(std::move(*from_crd)))
                    : Expected<std::optional<LiveSchema>>(from_crd.error());
  } else if (d.crd_error && (d.crd_error->http_status == 401 || d.crd_error->http_status == 403) &&
             cluster.api) {
    live = schema_from_openapi(*cluster.api, cache_dir);
  } else {
    ctx.err << "note: no PyTorchJob CRD in the cluster: using the carried schemas\n";
    return std::nullopt;
  }
  if (!live) {
    ctx.err << "warning: " << live.error().message << ": using the carried schemas\n";
    return std::nullopt;
  }
  if (!*live) {
    ctx.err << "note: the cluster publishes no PyTorchJob schema: using the carried schemas\n";
    return std::nullopt;
  }
  if (ctx.verbosity > 0) {
    ctx.err << "schema: " << (*live)->source
            << (((*live)->cache_hit) ? ", from the cache " : ", compiled into ")
            << util::quote((*live)->cache_entry.string(), 400) << "\n";
  }
  return std::move(*live);
}

/// --server-dry-run: each PyTorchJob also goes to the server; its verdict joins the findings.
void add_server_findings(kube::ApiClient& api, const std::vector<yaml::InputFile>& inputs,
                         const ValidateSettings& settings, const std::string& ns, Report& report) {
  for (std::size_t f = 0; f < inputs.size() && f < report.files.size(); ++f) {
    if (inputs[f].too_large) continue;
    auto read = yaml::read_manifests(inputs[f], settings.limits);
    auto& file = report.files[f];
    for (const auto& doc : expand_lists(std::move(read.documents))) {
      const auto* kind = doc.root.find("kind");
      if (kind == nullptr || kind->text != "PyTorchJob") continue;
      for (auto& d : file.documents) {
        if (d.index != doc.index || d.skipped) continue;
        // What the local checks already said about a field is not said again.
        for (auto& finding : server_dry_run(api, doc, ns)) {
          const bool said =
              !finding.field_path.empty() &&
              std::any_of(d.findings.begin(), d.findings.end(), [&](const Diagnostic& mine) {
                return mine.severity == finding.severity && mine.field_path == finding.field_path;
              });
          if (!said) d.findings.push_back(std::move(finding));
        }
        std::stable_sort(d.findings.begin(), d.findings.end(), [](const auto& a, const auto& b) {
          return std::tie(a.location.line, a.location.col) < std::tie(b.location.line, b.location.col);
        });
      }
    }
  }
}

}  // namespace kpt::plugin
