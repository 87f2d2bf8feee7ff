#pragma once

#include "controller/status_server.hpp"
#include "kube/api_client.hpp"
#include "util/expected.hpp"

#include <string>

namespace kpt::plugin {

/// The status server's certificate, for `controller` with TrainJobStatus on:
/// - from `cert_dir` (tls.crt, tls.key, ca.crt: a kubernetes.io/tls Secret mounted there, as
///   cert-manager writes it), when given;
/// - else, in a cluster (`in_cluster_namespace` set), from the Secret `secret` in that namespace,
///   created with a new CA and certificate for `host` by the first replica that finds none, so that
///   every replica behind the Service serves the same one;
/// - else generated for this process alone.
Expected<controller::StatusServerTls> status_server_tls(kube::ApiClient& api, const std::string& cert_dir,
                                                        const std::string& in_cluster_namespace,
                                                        const std::string& secret, const std::string& host);

}  // namespace kpt::plugin
