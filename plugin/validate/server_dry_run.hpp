#pragma once

#include "kube/api_client.hpp"
#include "util/diagnostic.hpp"
#include "yaml/node.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kpt::plugin {

/// The field paths a Kubernetes Status message names, each with its part of the message:
///   `unknown field "spec.foo"` (strict decoding) and `spec.x.y: Invalid value: ...` (422 Invalid: any
///   path from spec, metadata or status followed by ": ").
struct StatusCause {
  std::string field;    ///< "spec.pytorchReplicaSpecs.Worker.replicas", "" when none is named
  std::string message;  ///< that cause's words
};
std::vector<StatusCause> causes_from_status_message(const std::string& message);

/// Where `field` ("spec.a.b[0].c") is in the document: the deepest node of the path that exists.
Location location_of_field(const yaml::Document& doc, const std::string& field);

/// Findings from the server's answer to a dry run: each cause at its field's position (rule
/// "server.dry-run", severity error), each warning at the document start (rule "server.warning").
Diagnostics findings_from_server(const yaml::Document& doc, const std::string& error_message,
                                 const std::vector<std::string>& warnings);

/// The REST resource of `kind` in a group/version discovery document (GET /api/v1 or
/// /apis/<group>/<version>): its plural and scope; nullopt when the document does not list the kind.
std::optional<kube::ResourceRef> resource_in_discovery(const nlohmann::json& discovery,
                                                       const std::string& api_version,
                                                       const std::string& kind);

/// Sends `doc`, an object of `resource`, with dryRun=All and fieldValidation=Strict (server-side apply
/// when it has a name, else create) into its namespace or `default_ns` (none for a cluster-scoped kind),
/// and returns the server's verdict as findings.
Diagnostics server_dry_run(kube::ApiClient& api, const kube::ResourceRef& resource, const yaml::Document& doc,
                           const std::string& default_ns);

}  // namespace kpt::plugin
