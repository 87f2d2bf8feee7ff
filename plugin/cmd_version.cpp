#include "plugin/build_info.hpp"
#include "plugin/commands.hpp"
#include "plugin/context.hpp"
#include "plugin/failure.hpp"
#include "plugin/plugin.hpp"
#include "yaml/yaml_writer.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <memory>
#include <ostream>
#include <string>

namespace kpt::plugin {

std::string client_version_text(const BuildInfo& info) {
  std::string text = "kubectl-pytorch " + info.git_version + "\n";
  if (info.git_commit.empty()) return text + "commit unknown: built from a tree without git history\n";
  text += "commit " + info.git_commit;
  if (info.git_tree_state == "dirty") text += " with uncommitted changes";
  return text + "\n";
}

nlohmann::json client_version_document(const BuildInfo& info) {
  return {{"clientVersion",
           {{"gitVersion", info.git_version},
            {"gitCommit", info.git_commit},
            {"gitTreeState", info.git_tree_state}}}};
}

namespace {

int print_client_version(Context& ctx, const std::string& output) {
  const BuildInfo info = build_info();
  if (output == "json") {
    ctx.out << client_version_document(info).dump(2) << "\n";
  } else if (output == "yaml") {
    ctx.out << yaml::to_yaml(client_version_document(info));
  } else {
    ctx.out << client_version_text(info);
  }
  return exit_code::ok;
}

}  // namespace

void add_version_command(CLI::App& app, Context& ctx) {
  struct Flags {
    bool cluster = false;
    std::string output = "table";
  };
  auto flags = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand("version", "Print the client version (--cluster: and what doctor detects)");
  cmd->footer(
      "Examples:\n"
      "  kubectl pytorch version\n"
      "  kubectl pytorch version --cluster -o json\n"
      "Exit codes: 0 printed; with --cluster, doctor's: 1 the cluster cannot be reached, 2 no usable "
      "kubeconfig.");
  cmd->add_flag("--cluster", flags->cluster,
                "Also report the cluster's Training Operator release (as doctor)");
  cmd->add_option("-o,--output", flags->output, "Output format: table (default), json or yaml")
      ->check(CLI::IsMember({"table", "json", "yaml"}).description(""))
      ->type_name("FORMAT");
  cmd->callback([flags, &ctx] {
    if (!flags->cluster) {
      ctx.exit_code = print_client_version(ctx, flags->output);
      return;
    }
    // With -o json or yaml only the report goes to stdout, so that it stays one document.
    if (flags->output == "table") ctx.out << client_version_text(build_info());
    ctx.exit_code = run_doctor(flags->output, ctx);
  });
}

}  // namespace kpt::plugin
