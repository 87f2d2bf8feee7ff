#include "plugin/completion.hpp"

#include "kube/api_client.hpp"
#include "kube/file_system.hpp"
#include "kube/kubeconfig.hpp"
#include "model/k8s/object_meta.hpp"
#include "model/pytorchjob/release.hpp"
#include "model/trainjob/release.hpp"
#include "plugin/cluster_client.hpp"
#include "plugin/context.hpp"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <map>
#include <ostream>

namespace kpt::plugin {

namespace {

// Where the words before the one being typed leave the command line.
struct Walk {
  const CLI::App* command = nullptr;
  const CLI::Option* pending = nullptr;  ///< an option whose value is the word being typed
  std::vector<std::string> positionals;  ///< the command's arguments so far
};

const CLI::App* find_subcommand(const CLI::App* app, const std::string& name) {
  for (const auto* sub : app->get_subcommands([](const CLI::App*) { return true; })) {
    if (!sub->get_group().empty() && sub->check_name(name)) return sub;  // an alias too (why)
  }
  return nullptr;
}

const CLI::Option* find_option(const CLI::App* app, const CLI::App& root, const std::string& word) {
  const std::string name = word.substr(0, word.find('='));
  if (const auto* opt = app->get_option_no_throw(name)) return opt;
  return root.get_option_no_throw(name);
}

bool takes_value(const CLI::Option* opt) { return opt->get_expected_min() > 0; }

// The connection flags given on the line so far, so that job names come from the cluster the
// command will talk to.
void note_connection(Context& ctx, const CLI::Option* opt, const std::string& value) {
  if (opt->check_name("--kubeconfig")) ctx.connection.kubeconfig = value;
  if (opt->check_name("--context")) ctx.connection.context = value;
  if (opt->check_name("--namespace")) ctx.connection.namespace_ = value;
}

Walk walk(const CLI::App& root, Context& ctx, const std::vector<std::string>& before) {
  Walk w;
  w.command = &root;
  for (std::size_t i = 0; i < before.size(); ++i) {
    const std::string& word = before[i];
    if (word.size() > 1 && word[0] == '-') {
      const auto* opt = find_option(w.command, root, word);
      if (opt == nullptr || !takes_value(opt)) continue;
      if (word.find('=') != std::string::npos) {
        note_connection(ctx, opt, word.substr(word.find('=') + 1));
      } else if (i + 1 < before.size()) {
        note_connection(ctx, opt, before[++i]);
      } else {
        w.pending = opt;
      }
      continue;
    }
    if (w.positionals.empty()) {
      if (const auto* sub = find_subcommand(w.command, word)) {
        w.command = sub;
        continue;
      }
    }
    w.positionals.push_back(word);
  }
  return w;
}

void add_matching(Completion& c, const std::string& partial, const std::string& value,
                  const std::string& description = {}) {
  if (value.rfind(partial, 0) == 0) c.candidates.push_back({value, description});
}

// -o of each command, as its --help lists them.
std::vector<std::string> output_formats(const std::string& command) {
  static const std::map<std::string, std::vector<std::string>> k_formats = {
      {"validate", {"text", "json", "yaml", "junit", "sarif", "github"}},
      {"env", {"table", "json", "yaml", "dotenv"}},
      {"status", {"table", "wide", "json", "yaml", "name"}},
      {"doctor", {"table", "json", "yaml"}},
      {"version", {"table", "json", "yaml"}},
      {"run", {"yaml", "json", "name"}},
      {"diagnose", {"text", "json", "yaml"}},
      {"config-resolve", {"json"}}};
  const auto it = k_formats.find(command);
  return it == k_formats.end() ? std::vector<std::string>{} : it->second;
}

std::vector<std::string> operator_releases() {
  std::vector<std::string> out;
  for (const auto& r : model::pytorchjob::k_releases) out.push_back(r.to_string());
  return out;
}

std::vector<std::string> env_styles() {
  std::vector<std::string> out = {"worker-only", "legacy", "torchrun"};
  for (const auto& r : model::pytorchjob::k_releases) out.push_back("operator@" + r.to_string());
  return out;
}

std::vector<std::string> trainer_releases() {
  std::vector<std::string> out;
  for (const auto& r : model::trainjob::k_trainer_releases) out.push_back(r.to_string());
  return out;
}

std::vector<std::string> kubeconfig_contexts(const Context& ctx) {
  kube::KubeconfigSources sources;
  sources.explicit_path = ctx.connection.kubeconfig;
  sources.kubeconfig_env = ctx.getenv("KUBECONFIG");
  sources.home = ctx.getenv("HOME").value_or("");
  char buf[4096];
  if (::getcwd(buf, sizeof buf) != nullptr) sources.cwd = buf;
  kube::RealFileSystem fs;
  auto config = kube::load_kubeconfig(sources, fs);
  std::vector<std::string> out;
  if (config) {
    for (const auto& [name, context] : config->contexts) out.push_back(name);
  }
  return out;
}

// Names of a resource in the cluster; nothing when the cluster cannot be read at once.
std::vector<std::string> names_in_cluster(Context& ctx, const kube::ResourceRef& ref, bool namespaced) {
  if (ctx.connection.request_timeout == "0") ctx.connection.request_timeout = "2s";
  std::vector<std::string> out;
  auto api = connect_best_effort(ctx);
  if (!api) return out;
  const std::string ns = namespaced ? target_namespace(ctx) : std::string{};
  auto listed = (*api)->list(ref, ns, kube::ListOptions{});
  if (!listed) return out;
  for (const auto& item : listed->items) out.push_back(model::k8s::meta_string(item, "name"));
  return out;
}

std::vector<std::string> option_values(Context& ctx, const std::string& command, const CLI::Option* opt) {
  if (opt->check_name("--output")) return output_formats(command);
  if (opt->check_name("--operator")) return operator_releases();
  if (opt->check_name("--style")) return env_styles();
  if (opt->check_name("--trainer")) return trainer_releases();
  if (opt->check_name("--dry-run")) return {"none", "client", "server"};
  if (opt->check_name("--color")) return {"auto", "always", "never"};
  if (opt->check_name("--context")) return kubeconfig_contexts(ctx);
  if (opt->check_name("--namespace")) return names_in_cluster(ctx, kube::resources::namespaces(), false);
  return {};
}

// Values of an option: known sets without files; an option outside the table may name a file.
Completion complete_value(Context& ctx, const Walk& w, const std::string& prefix,
                          const std::string& partial) {
  Completion c;
  const auto values = option_values(ctx, w.command->get_name(), w.pending);
  for (const auto& v : values) {
    if (v.rfind(partial, 0) == 0) c.candidates.push_back({prefix + v, ""});
  }
  const bool known = !values.empty() || w.pending->check_name("--namespace") ||
                     w.pending->check_name("--context") || w.pending->check_name("--output");
  c.directive = known ? directive::k_no_file : directive::k_default;
  return c;
}

Completion complete_flags(const CLI::App& root, const Walk& w, const std::string& partial) {
  Completion c;
  for (const CLI::App* app : {w.command, &root}) {
    for (const auto* opt : app->get_options()) {
      for (const auto& n : opt->get_lnames()) add_matching(c, partial, "--" + n, opt->get_description());
      for (const auto& n : opt->get_snames()) add_matching(c, partial, "-" + n, opt->get_description());
    }
    if (app == &root) break;
  }
  c.directive = directive::k_no_file;
  return c;
}

// logs, status, diagnose and env take a job's name (env also a file).
Completion complete_arguments(Context& ctx, const Walk& w, const std::string& partial) {
  Completion c;
  const std::string& name = w.command->get_name();
  const bool takes_job = name == "logs" || name == "status" || name == "diagnose" || name == "env";
  if (takes_job && w.positionals.empty()) {
    for (const auto& job : names_in_cluster(ctx, kube::resources::pytorchjobs(), true))
      add_matching(c, partial, job);
    for (const auto& job : names_in_cluster(ctx, kube::resources::trainjobs(), true))
      add_matching(c, partial, job);
  }
  const bool takes_files = name == "validate" || name == "run" || name == "env";
  c.directive = takes_files ? directive::k_default : directive::k_no_file;
  return c;
}

}  // namespace

Completion complete_words(const CLI::App& root, Context& ctx, const std::vector<std::string>& words) {
  const std::string partial = words.empty() ? std::string{} : words.back();
  const std::vector<std::string> before(words.begin(), words.end() - (words.empty() ? 0 : 1));
  Walk w = walk(root, ctx, before);
  if (w.pending != nullptr) return complete_value(ctx, w, "", partial);
  if (partial.rfind("--", 0) == 0 && partial.find('=') != std::string::npos) {
    w.pending = find_option(w.command, root, partial);
    if (w.pending != nullptr && takes_value(w.pending))
      return complete_value(ctx, w, partial.substr(0, partial.find('=') + 1),
                            partial.substr(partial.find('=') + 1));
    return {};
  }
  if (partial.rfind('-', 0) == 0) return complete_flags(root, w, partial);
  bool has_subcommands = false;
  Completion c;
  for (const auto* sub :
       w.command->get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); })) {
    has_subcommands = true;
    add_matching(c, partial, sub->get_name(), sub->get_description());
  }
  if (!has_subcommands) return complete_arguments(ctx, w, partial);
  c.directive = directive::k_no_file;
  return c;
}

void write_completion(std::ostream& out, const Completion& completion) {
  for (const auto& c : completion.candidates) {
    out << c.value;
    if (!c.description.empty()) out << '\t' << c.description;
    out << '\n';
  }
  out << ':' << completion.directive << '\n';
}

}  // namespace kpt::plugin
