#include "plugin/job_hints.hpp"

#include "local/cluster_paths.hpp"
#include "plugin/context.hpp"
#include "plugin/follow/job_kind.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace kpt::plugin {

namespace {

std::string connection_words(const Context& ctx) {
  return flag_words("--kubeconfig", ctx.connection.kubeconfig) +
         flag_words("--context", ctx.connection.context);
}

std::string plugin_flags(const Context& ctx, bool local, const std::string& ns) {
  return (local ? std::string(" --local") : connection_words(ctx)) + flag_words("-n", ns);
}

std::string kubectl_flags(const Context& ctx, bool local, const std::string& ns) {
  const std::string where =
      local ? flag_words("--kubeconfig", local::default_kubeconfig_path(ctx.env)) : connection_words(ctx);
  return where + flag_words("-n", ns);
}

}  // namespace

std::string shell_word(const std::string& word) {
  const auto plain = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("_-./:=@%+,").find(c) != std::string_view::npos;
  };
  if (!word.empty() && std::all_of(word.begin(), word.end(), plain)) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string flag_words(const std::string& name, const std::string& value) {
  return value.empty() ? std::string() : " " + name + " " + shell_word(value);
}

std::string job_word(const JobKind& kind, const std::string& name) {
  return &kind == &pytorchjob_kind() ? name : std::string(kind.singular) + "/" + name;
}

std::string plugin_hint(const Context& ctx, bool local, const std::string& args, const std::string& ns) {
  return ctx.program + " " + args + plugin_flags(ctx, local, ns);
}

std::string kubectl_hint(const Context& ctx, bool local, const std::string& args, const std::string& ns) {
  return "kubectl " + args + kubectl_flags(ctx, local, ns);
}

StepContext step_context(const Context& ctx, bool local, const JobKind& kind, const std::string& name,
                         const std::string& ns) {
  StepContext s;
  s.program = ctx.program;
  s.job_word = job_word(kind, name);
  s.flags = plugin_flags(ctx, local, ns);
  s.kubectl_flags = kubectl_flags(ctx, local, ns);
  s.trainjob = &kind == &trainjob_kind();
  return s;
}

}  // namespace kpt::plugin
