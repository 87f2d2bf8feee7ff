#include "plugin/validate/live_validate.hpp"

#include "plugin/context.hpp"
#include "plugin/validate/server_dry_run.hpp"
#include "util/messages.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <map>
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
    util::print_note(ctx.err, "no PyTorchJob CRD in the cluster: using the carried schemas");
    return std::nullopt;
  }
  if (!live) {
    util::print_warning(ctx.err, live.error().message + ": using the carried schemas");
    return std::nullopt;
  }
  if (!*live) {
    util::print_note(ctx.err, "the cluster publishes no PyTorchJob schema: using the carried schemas");
    return std::nullopt;
  }
  if (ctx.verbosity > 0) {
    ctx.err << "schema: " << (*live)->source
            << (((*live)->cache_hit) ? ", from the cache " : ", compiled into ")
            << util::quote((*live)->cache_entry.string(), 400) << "\n";
  }
  return std::move(*live);
}

namespace {

/// The REST resources of the kinds a run's documents name, from the server's discovery (one request
/// per group/version); nullopt for a kind the server does not serve.
class ResourceFinder {
 public:
  explicit ResourceFinder(kube::ApiClient& api) : m_api(api) {}

  std::optional<kube::ResourceRef> find(const std::string& api_version, const std::string& kind) {
    auto it = m_discovery.find(api_version);
    if (it == m_discovery.end()) {
      kube::ResourceRef probe;
      const auto slash = api_version.find('/');
      probe.group = slash == std::string::npos ? std::string() : api_version.substr(0, slash);
      probe.version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
      auto raw = m_api.get_raw(probe.group_version_path());
      auto parsed = raw ? nlohmann::json::parse(*raw, nullptr, false) : nlohmann::json();
      if (parsed.is_discarded()) parsed = nlohmann::json();
      it = m_discovery.emplace(api_version, std::move(parsed)).first;
    }
    return resource_in_discovery(it->second, api_version, kind);
  }

 private:
  kube::ApiClient& m_api;
  std::map<std::string, nlohmann::json, std::less<>> m_discovery;
};

}  // namespace

/// --server-dry-run: every document with apiVersion and kind also goes to the server; its verdict
/// joins the findings. A document validate could not check is checked by the server now.
void add_server_findings(kube::ApiClient& api, const std::vector<yaml::InputFile>& inputs,
                         const ValidateSettings& settings, const std::string& ns, Report& report) {
  ResourceFinder resources(api);
  for (std::size_t f = 0; f < inputs.size() && f < report.files.size(); ++f) {
    if (inputs[f].too_large) continue;
    auto read = yaml::read_manifests(inputs[f], settings.limits);
    auto& file = report.files[f];
    for (const auto& doc : expand_lists(std::move(read.documents))) {
      const auto* kind = doc.root.find("kind");
      const auto* api_version = doc.root.find("apiVersion");
      if (kind == nullptr || !kind->is_string() || api_version == nullptr || !api_version->is_string())
        continue;
      for (auto& d : file.documents) {
        if (d.index != doc.index) continue;
        Diagnostics found;
        if (const auto resource = resources.find(api_version->text, kind->text)) {
          found = server_dry_run(api, *resource, doc, ns);
        } else {
          Diagnostic missing;
          missing.severity = Severity::error;
          missing.location = location_of_field(doc, "kind");
          missing.field_path = "kind";
          missing.rule_id = "server.dry-run";
          missing.message = "the server does not serve kind " + util::quote(kind->text) + " in " +
                            util::quote(api_version->text) + ": install its CRD before this document";
          found.push_back(std::move(missing));
        }
        if (d.skipped) {  // the server judged what validate could not
          d.skipped = false;
          d.skip_reason.clear();
        }
        // What the local checks already said about a field is not said again.
        for (auto& finding : found) {
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
