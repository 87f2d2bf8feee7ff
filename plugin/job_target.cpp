#include "plugin/job_target.hpp"

#include "plugin/cluster_client.hpp"
#include "plugin/context.hpp"

namespace kpt::plugin {

Expected<JobTarget> open_job_target(const Context& ctx, bool local, bool start_local) {
  JobTarget t;
  if (local) {
    auto s = open_local_session(ctx, start_local);
    if (!s) return s.error();
    t.session = std::move(*s);
    t.api = t.session->client.get();
    t.ns = ctx.connection.namespace_.empty() ? "default" : ctx.connection.namespace_;
    return t;
  }
  auto c = connect(ctx);
  if (!c) return c.error();
  t.remote = std::move(*c);
  t.api = t.remote.get();
  t.ns = target_namespace(ctx);
  return t;
}

}  // namespace kpt::plugin
