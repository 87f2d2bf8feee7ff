#pragma once

#include "apiserver/http_types.hpp"
#include "apiserver/resource_ops.hpp"
#include "apiserver/status.hpp"

namespace kpt::apiserver {

/// A delete request's meta/v1 DeleteOptions: from its body when it has one (a DeleteOptions
/// object, with or without apiVersion and kind, as kubectl and Python's client send it, or in the
/// Kubernetes protobuf envelope, as client-go's typed clients send it), else from
/// the query (propagationPolicy, orphanDependents, dryRun), as the real server's
/// k8s.io/apiserver pkg/endpoints/handlers/delete.go reads them. 400 for a body that does not
/// decode (415 for a protobuf field it does not know), 422 for a propagation policy the server
/// does not know.
Expected<DeleteOptions> delete_options_of(const HttpRequest& request);

}  // namespace kpt::apiserver
