#include "plugin/context.hpp"

namespace kpt::plugin {

namespace {
bool colour_allowed(const Context& ctx, bool is_tty) {
  if (!is_tty) return false;
  if (ctx.env.count("NO_COLOR") != 0) return false;
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
