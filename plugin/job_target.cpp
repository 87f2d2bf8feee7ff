#include "plugin/job_target.hpp"

#include "plugin/cluster_client.hpp"
#include "plugin/context.hpp"

#include <ostream>

namespace kpt::plugin {

std::optional<JobTarget> open_job_target(const Context& ctx, bool local) {
  JobTarget t;
  if (local) {
    auto s = open_local_session(ctx, false);
    if (!s) {
      ctx.err << "error: " << s.error().message << "\n";
      return std::nullopt;
    }
    t.session = std::move(*s);
    t.api = t.session->client.get();
    t.ns = ctx.connection.namespace_.empty() ? "default" : ctx.connection.namespace_;
    return t;
  }
  auto c = connect(ctx);
  if (!c) {
    ctx.err << "error: " << c.error().message << "\n";
    return std::nullopt;
  }
  t.remote = std::move(*c);
  t.api = t.remote.get();
  t.ns = target_namespace(ctx);
  return t;
}

}  // namespace kpt::plugin
