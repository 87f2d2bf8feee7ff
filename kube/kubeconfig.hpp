#pragma once

#include "kube/file_system.hpp"
#include "util/expected.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kpt::kube {

struct ExecEnvVar {
  std::string name;
  std::string value;
};

/// users[].user.exec: a client.authentication.k8s.io credential plugin.
struct ExecConfig {
  std::string command;  ///< resolved against the defining file's folder when it contains a '/'
  std::vector<std::string> args;
  std::vector<ExecEnvVar> env;
  std::string api_version;
  std::string install_hint;
  bool provide_cluster_info = false;
  std::string interactive_mode;  ///< "", "Never", "IfAvailable", "Always"
};

/// clusters[].cluster; `*_data` fields hold the decoded bytes (PEM), file paths are absolute.
struct KubeconfigCluster {
  std::string server;
  std::string certificate_authority;
  std::string certificate_authority_data;
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;
  std::string proxy_url;
  bool disable_compression = false;
  std::string exec_extension_json;  ///< extensions[client.authentication.k8s.io/exec].extension, as JSON
  std::string origin;               ///< the file that defined it
};

/// users[].user.
struct KubeconfigUser {
  std::string token;
  std::string token_file;
  std::string client_certificate;
  std::string client_certificate_data;
  std::string client_key;
  std::string client_key_data;
  std::string username;
  std::string password;
  std::string as;
  std::string as_uid;
  std::vector<std::string> as_groups;
  std::map<std::string, std::vector<std::string>> as_user_extra;
  std::optional<ExecConfig> exec;
  std::string auth_provider;  ///< name of the legacy auth-provider, if any
  std::string origin;
};

struct KubeconfigContext {
  std::string cluster;
  std::string user;
  std::string namespace_;
  std::string origin;
};

/// A merged kubeconfig: first definition of each name wins, first current-context wins.
struct Kubeconfig {
  std::map<std::string, KubeconfigCluster> clusters;
  std::map<std::string, KubeconfigUser> users;
  std::map<std::string, KubeconfigContext> contexts;
  std::string current_context;
  std::vector<std::string> files;  ///< files actually loaded, in precedence order

  [[nodiscard]] bool empty() const {
    return clusters.empty() && users.empty() && contexts.empty() && current_context.empty();
  }
};

/// Parses one kubeconfig file; `path` must be absolute: relative paths inside resolve against its folder.
/// Errors read `error loading config file "<path>": <problem>` as kubectl's do.
Expected<Kubeconfig> parse_kubeconfig(const std::string& path, const std::string& text);

/// Adds the entries of `later` that `merged` does not define yet (kubectl's first-wins rule).
void merge_kubeconfig(Kubeconfig& merged, const Kubeconfig& later);

/// Where kubeconfig files come from.
struct KubeconfigSources {
  std::string explicit_path;                  ///< --kubeconfig: only this file, missing is an error
  std::optional<std::string> kubeconfig_env;  ///< $KUBECONFIG, ':'-separated, missing files skipped
  std::string home;                           ///< $HOME, for ~/.kube/config
  std::string cwd;                            ///< to make relative file names absolute
};

/// Loads and merges as kubectl does (--kubeconfig, else $KUBECONFIG, else ~/.kube/config).
Expected<Kubeconfig> load_kubeconfig(const KubeconfigSources& sources, const FileSystem& fs);

}  // namespace kpt::kube
