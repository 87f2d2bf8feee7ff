#pragma once

#include "kube/api_client.hpp"
#include "util/expected.hpp"

#include <string>
#include <vector>

namespace kpt::controller {

/// Where one kind the controller reconciles stands. Each kind stands on its own: a kind that is
/// forbidden or blocked never holds the others back.
enum class KindState {
  waiting,      ///< its caches are filling
  reconciling,  ///< its workers run
  forbidden,    ///< the RBAC forbids a list it needs (its informers keep trying: a grant takes effect)
  blocked,      ///< another controller reconciles its jobs, or the guard cannot tell (fails closed)
};
const char* to_string(KindState state);  ///< "waiting", "reconciling", "forbidden", "blocked"

struct KindReport {
  std::string kind;  ///< "pytorchjobs", "trainjobs"
  KindState state = KindState::waiting;
  std::string message;  ///< for forbidden and blocked: what is wrong and the fix
};

/// What /healthz and /readyz answer, with the text they serve.
struct Health {
  bool live = true;
  bool ready = false;
  std::string text;
};

/// The health of a controller from its kinds. A standby (waiting for the lease) is live and ready
/// to take over. A leader is live unless the RBAC forbids every kind it reconciles (a restart shows
/// that in the pod's status, and the text names the fix), and ready once no kind is still waiting
/// and at least one reconciles. The text: "ok" or "not ready", then one line per kind.
Health evaluate_health(const std::vector<KindReport>& kinds, bool leading, bool leader_elect);

/// The message of a kind whose informer on `resource` is refused with `error` (401/403): the server's
/// words and the fix, naming the manifests that grant it and the --kinds that leaves the kind out.
std::string forbidden_message(const std::string& kind, const kube::ResourceRef& resource, const Error& error);

/// Whether an error is the server refusing the request (401, 403).
bool is_forbidden(const Error& error);

}  // namespace kpt::controller
