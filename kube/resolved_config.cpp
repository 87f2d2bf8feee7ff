#include "kube/resolved_config.hpp"

#include "util/strings.hpp"
#include "util/time.hpp"

#include <cctype>

namespace kpt::kube {

namespace {

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

std::string env_or(const std::map<std::string, std::string>& env, const std::string& key) {
  auto it = env.find(key);
  return it == env.end() ? std::string() : it->second;
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

bool in_cluster_possible(const ResolveInputs& in, const FileSystem& fs) {
  return !env_or(in.env, "KUBERNETES_SERVICE_HOST").empty() &&
         !env_or(in.env, "KUBERNETES_SERVICE_PORT").empty() && fs.is_file(in.service_account_dir + "/token");
}

std::string in_cluster_namespace(const ResolveInputs& in, const FileSystem& fs) {
  if (auto ns = env_or(in.env, "POD_NAMESPACE"); !ns.empty()) return ns;
  if (auto text = fs.read(in.service_account_dir + "/namespace"); text) {
    if (auto ns = trim(*text); !ns.empty()) return ns;
  }
  return "default";
}

std::string absolute(const std::string& cwd, const std::string& path) { return resolve_path(cwd, path); }

/// client-go's validateAuthInfo.
void validate_user(const std::string& name, const ResolvedConfig& c, const FileSystem& fs,
                   std::vector<std::string>& errors) {
  std::vector<std::string> methods;
  if (!c.token.empty() || !c.token_file.empty()) methods.emplace_back("token");
  if (!c.username.empty() || !c.password.empty()) methods.emplace_back("basicAuth");
  if (!c.client_certificate_file.empty() || !c.client_certificate_data.empty()) {
    if (!c.client_certificate_file.empty() && !c.client_certificate_data.empty())
      errors.push_back("client-cert-data and client-cert are both specified for " + name +
                       ". client-cert-data will override.");
    if (!c.client_key_file.empty() && !c.client_key_data.empty())
      errors.push_back("client-key-data and client-key are both specified for " + name +
                       "; client-key-data will override");
    if (c.client_key_file.empty() && c.client_key_data.empty())
      errors.push_back("client-key-data or client-key must be specified for " + name +
                       " to use the clientCert authentication method.");
    if (!c.client_certificate_file.empty()) {
      if (auto r = fs.read(c.client_certificate_file); !r)
        errors.push_back("unable to read client-cert " + c.client_certificate_file + " for " + name +
                         " due to " + r.error().message);
    }
    if (!c.client_key_file.empty()) {
      if (auto r = fs.read(c.client_key_file); !r)
        errors.push_back("unable to read client-key " + c.client_key_file + " for " + name + " due to " +
                         r.error().message);
    }
  }
  if (c.exec) {
    if (c.exec->command.empty())
      errors.push_back("command must be specified for " + name + " to use exec authentication plugin");
    if (c.exec->api_version.empty())
      errors.push_back("apiVersion must be specified for " + name + " to use exec authentication plugin");
    for (const auto& e : c.exec->env)
      if (e.name.empty())
        errors.push_back("env variable name must be specified for " + name +
                         " to use exec authentication plugin");
    const auto& mode = c.exec->interactive_mode;
    if (!mode.empty() && mode != "Never" && mode != "IfAvailable" && mode != "Always")
      errors.push_back("invalid interactiveMode for " + name + ": \"" + mode + "\"");
    if (mode.empty() && c.exec->api_version == "client.authentication.k8s.io/v1")
      errors.push_back("interactiveMode must be specified for " + name +
                       " to use exec authentication plugin");
  }
  if (methods.size() > 1)
    errors.push_back("more than one authentication method found for " + name + "; found [" +
                     join(methods, " ") + "], only one is allowed");
  if ((!c.impersonate_uid.empty() || !c.impersonate_groups.empty() || !c.impersonate_extra.empty()) &&
      c.impersonate_user.empty())
    errors.push_back("requesting uid, groups or user-extra for " + name + " without impersonating a user");
}

/// client-go's validateClusterInfo.
void validate_cluster(const std::string& name, const ResolvedConfig& c, const FileSystem& fs,
                      std::vector<std::string>& errors) {
  if (c.server.empty()) {
    errors.push_back(name.empty() ? "cluster has no server defined"
                                  : "no server found for cluster \"" + name + "\"");
  }
  if (!c.ca_file.empty()) {
    if (auto r = fs.read(c.ca_file); !r)
      errors.push_back("unable to read certificate-authority " + c.ca_file + " for " + name + " due to " +
                       r.error().message);
  }
}

AuthKind classify(const ResolvedConfig& c) {
  if (!c.token.empty()) return AuthKind::token;
  if (!c.token_file.empty()) return AuthKind::token_file;
  if (c.exec) return AuthKind::exec;
  if (!c.username.empty() || !c.password.empty()) return AuthKind::basic;
  if (!c.client_certificate_file.empty() || !c.client_certificate_data.empty()) return AuthKind::client_cert;
  return AuthKind::none;
}

void apply_auth_flags(ResolvedConfig& c, const ConnectionFlags& f, const std::string& cwd) {
  if (!f.token.empty()) {
    c.token = f.token;
    c.token_file.clear();
  }
  if (!f.client_certificate.empty()) {
    c.client_certificate_file = absolute(cwd, f.client_certificate);
    c.client_certificate_data.clear();
  }
  if (!f.client_key.empty()) {
    c.client_key_file = absolute(cwd, f.client_key);
    c.client_key_data.clear();
  }
  if (!f.username.empty()) c.username = f.username;
  if (!f.password.empty()) c.password = f.password;
  if (!f.as.empty()) c.impersonate_user = f.as;
  if (!f.as_uid.empty()) c.impersonate_uid = f.as_uid;
  if (!f.as_groups.empty()) c.impersonate_groups = f.as_groups;
}

void apply_cluster_flags(ResolvedConfig& c, const ConnectionFlags& f, const std::string& cwd) {
  if (!f.server.empty()) {
    c.server = f.server;
    c.tls_server_name.clear();  // the kubeconfig's name belongs to the kubeconfig's server
  }
  if (!f.tls_server_name.empty()) c.tls_server_name = f.tls_server_name;
  if (!f.certificate_authority.empty()) {
    c.ca_file = absolute(cwd, f.certificate_authority);
    c.ca_data.clear();
    c.insecure_skip_tls_verify = false;
  }
  if (f.insecure_skip_tls_verify) {
    c.insecure_skip_tls_verify = true;
    c.ca_file.clear();
    c.ca_data.clear();
  }
  if (f.disable_compression) c.disable_compression = true;
}

Expected<ResolvedConfig> finish(ResolvedConfig c, const ResolveInputs& in) {
  auto timeout = parse_duration(in.flags.request_timeout);
  if (!timeout) return timeout.error();
  c.timeout = *timeout;
  if (c.insecure_skip_tls_verify && (!c.ca_file.empty() || !c.ca_data.empty()))
    return make_error(ErrorCode::config,
                      "specifying a root certificates file with the insecure flag is not allowed");
  c.auth = classify(c);
  return c;
}

Expected<ResolvedConfig> in_cluster(const ResolveInputs& in, const FileSystem& fs) {
  ResolvedConfig c;
  c.in_cluster = true;
  std::string host = env_or(in.env, "KUBERNETES_SERVICE_HOST");
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  c.server = "https://" + host + ":" + env_or(in.env, "KUBERNETES_SERVICE_PORT");
  c.token_file = in.service_account_dir + "/token";
  auto token = fs.read(c.token_file);
  if (!token)
    return make_error(ErrorCode::config, "reading the service account token: " + token.error().message);
  if (fs.is_file(in.service_account_dir + "/ca.crt")) c.ca_file = in.service_account_dir + "/ca.crt";
  apply_cluster_flags(c, in.flags, in.cwd);
  apply_auth_flags(c, in.flags, in.cwd);
  if (!in.flags.namespace_.empty()) {
    c.namespace_ = in.flags.namespace_;
    c.namespace_overridden = true;
  } else {
    c.namespace_ = in_cluster_namespace(in, fs);
  }
  return finish(std::move(c), in);
}

}  // namespace

const char* auth_kind_name(AuthKind kind) {
  switch (kind) {
    case AuthKind::none:
      return "none";
    case AuthKind::token:
      return "token";
    case AuthKind::token_file:
      return "tokenFile";
    case AuthKind::exec:
      return "exec";
    case AuthKind::basic:
      return "basic";
    case AuthKind::client_cert:
      return "clientCertificate";
  }
  return "none";
}

Expected<std::chrono::milliseconds> parse_duration(const std::string& text) {
  // kubectl's --request-timeout: "0" or empty is no timeout; a bare integer is seconds.
  if (text.empty()) return std::chrono::milliseconds{0};
  if (auto ms = util::parse_duration_ms(text)) return std::chrono::milliseconds{*ms};
  return make_error(
      ErrorCode::usage,
      "invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a "
      "corresponding time unit (e.g. 1s | 2m | 3h)");
}

Expected<ResolvedConfig> resolve_config(const Kubeconfig& config, const ResolveInputs& in,
                                        const FileSystem& fs) {
  const ConnectionFlags& f = in.flags;
  const std::string context_name = !f.context.empty() ? f.context : config.current_context;
  const bool nothing_chosen = context_name.empty() && f.cluster.empty() && f.server.empty();
  if (nothing_chosen && in_cluster_possible(in, fs)) return in_cluster(in, fs);
  if (nothing_chosen && config.empty() && f.user.empty())
    return make_error(
        ErrorCode::config,
        "invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER "
        "environment variable");

  std::vector<std::string> errors;
  KubeconfigContext ctx;
  if (!context_name.empty()) {
    auto it = config.contexts.find(context_name);
    if (it == config.contexts.end())
      return make_error(
          ErrorCode::config,
          "error in configuration: context was not found for specified context: " + context_name);
    ctx = it->second;
  }
  ResolvedConfig c;
  c.context = context_name;
  c.cluster = !f.cluster.empty() ? f.cluster : ctx.cluster;
  c.user = !f.user.empty() ? f.user : ctx.user;

  if (auto it = config.users.find(c.user); it != config.users.end()) {
    const KubeconfigUser& u = it->second;
    c.token = u.token;
    c.token_file = u.token_file;
    c.client_certificate_file = u.client_certificate;
    c.client_certificate_data = u.client_certificate_data;
    c.client_key_file = u.client_key;
    c.client_key_data = u.client_key_data;
    c.username = u.username;
    c.password = u.password;
    c.impersonate_user = u.as;
    c.impersonate_uid = u.as_uid;
    c.impersonate_groups = u.as_groups;
    c.impersonate_extra = u.as_user_extra;
    c.exec = u.exec;
    if (!u.auth_provider.empty() && u.exec)
      errors.push_back("authProvider cannot be provided in combination with an exec plugin for " + c.user);
  } else if (!f.user.empty()) {
    return make_error(ErrorCode::config, "auth info \"" + f.user + "\" does not exist");
  }
  if (auto it = config.clusters.find(c.cluster); it != config.clusters.end()) {
    const KubeconfigCluster& cl = it->second;
    c.server = cl.server;
    c.ca_file = cl.certificate_authority;
    c.ca_data = cl.certificate_authority_data;
    c.insecure_skip_tls_verify = cl.insecure_skip_tls_verify;
    c.tls_server_name = cl.tls_server_name;
    c.proxy_url = cl.proxy_url;
    c.disable_compression = cl.disable_compression;
    c.exec_cluster_extension_json = cl.exec_extension_json;
  }
  if (!c.ca_data.empty()) c.ca_file.clear();  // data wins over the file
  apply_cluster_flags(c, f, in.cwd);
  apply_auth_flags(c, f, in.cwd);

  validate_user(c.user, c, fs, errors);
  validate_cluster(c.cluster, c, fs, errors);
  // As kubectl prints them: one error alone, several under a heading.
  if (errors.size() == 1) return make_error(ErrorCode::config, errors.front());
  if (!errors.empty()) return make_error(ErrorCode::config, "error in configuration: " + join(errors, "; "));

  if (!f.namespace_.empty()) {
    c.namespace_ = f.namespace_;
    c.namespace_overridden = true;
  } else if (!ctx.namespace_.empty()) {
    c.namespace_ = ctx.namespace_;
  } else if (in_cluster_possible(in, fs)) {
    c.namespace_ = in_cluster_namespace(in, fs);
  } else {
    c.namespace_ = "default";
  }
  return finish(std::move(c), in);
}

Expected<ResolvedConfig> load_and_resolve(const ResolveInputs& in, const FileSystem& fs) {
  KubeconfigSources sources;
  sources.explicit_path = in.flags.kubeconfig;
  if (auto it = in.env.find("KUBECONFIG"); it != in.env.end()) sources.kubeconfig_env = it->second;
  sources.home = env_or(in.env, "HOME");
  sources.cwd = in.cwd;
  auto config = load_kubeconfig(sources, fs);
  if (!config) return config.error();
  return resolve_config(*config, in, fs);
}

}  // namespace kpt::kube
