#include "plugin/context.hpp"

namespace kpt::plugin {

namespace {
bool colour_allowed(const Context& ctx, bool is_tty) {
  // An explicit choice outranks the environment (no-color.org: user-level configuration wins).
  if (ctx.colour_mode == "always") return true;
  if (ctx.colour_mode == "never") return false;
  if (!is_tty) return false;
  // no-color.org: NO_COLOR disables colour when it is set and not empty.
  if (const auto no_color = ctx.env.find("NO_COLOR"); no_color != ctx.env.end() && !no_color->second.empty())
    return false;
  const auto term = ctx.env.find("TERM");
  return term == ctx.env.end() || term->second != "dumb";
}
}  // namespace

bool Context::colour_out() const { return colour_allowed(*this, out_is_tty); }
bool Context::colour_err() const { return colour_allowed(*this, err_is_tty); }

std::optional<std::string> Context::getenv(const std::string& name) const {
  const auto it = env.find(name);
  if (it == env.end()) return std::nullopt;
  return it->second;
}

}  // namespace kpt::plugin
