#include "controller/kind_status.hpp"

#include <algorithm>

namespace kpt::controller {

const char* to_string(KindState state) {
  switch (state) {
    case KindState::waiting:
      return "waiting";
    case KindState::reconciling:
      return "reconciling";
    case KindState::forbidden:
      return "forbidden";
    case KindState::blocked:
      return "blocked";
  }
  return "waiting";
}

bool is_forbidden(const Error& error) {
  return error.code == ErrorCode::api && (error.http_status == 401 || error.http_status == 403);
}

std::string forbidden_message(const std::string& kind, const kube::ResourceRef& resource,
                              const Error& error) {
  const std::string name =
      resource.group.empty() ? resource.resource : resource.resource + "." + resource.group;
  const bool trainjobs = kind == "trainjobs";
  return "the controller may not list " + name + " (" + error.message +
         "): grant it the rules of 'kubectl pytorch controller manifests" +
         (trainjobs ? " --trainer'" : "'") + ", or run it with --kinds " +
         (trainjobs ? "pytorchjobs" : "trainjobs");
}

Health evaluate_health(const std::vector<KindReport>& kinds, bool leading, bool leader_elect) {
  Health h;
  if (!leading && leader_elect) {
    h.ready = true;
    h.text = "ok: standby, waiting for the lease";
    return h;
  }
  const auto count = [&](KindState s) {
    return std::count_if(kinds.begin(), kinds.end(), [s](const KindReport& k) { return k.state == s; });
  };
  h.live = kinds.empty() || count(KindState::forbidden) < static_cast<long>(kinds.size());
  h.ready = count(KindState::waiting) == 0 && count(KindState::reconciling) > 0;
  h.text = !h.live ? "failed: no kind can be reconciled" : h.ready ? "ok" : "not ready";
  for (const auto& k : kinds) {
    h.text += "\n" + k.kind + ": ";
    switch (k.state) {
      case KindState::reconciling:
        h.text += "reconciling";
        break;
      case KindState::waiting:
        h.text += "waiting for its caches to fill";
        break;
      case KindState::forbidden:
      case KindState::blocked:
        h.text += std::string("not reconciled (") + to_string(k.state) + "): " + k.message;
        break;
    }
  }
  h.text += "\n";
  return h;
}

}  // namespace kpt::controller
