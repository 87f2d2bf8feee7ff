#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kpt::kube {

/// kubectl's connection flags (cli-runtime ConfigFlags). kubectl does not parse them
/// for plugins, so every command of ours accepts them after `pytorch`.
struct ConnectionFlags {
  std::string kubeconfig;
  std::string context;
  std::string cluster;
  std::string user;
  std::string namespace_;
  std::string server;
  std::string token;
  std::string certificate_authority;
  std::string client_certificate;
  std::string client_key;
  std::string tls_server_name;
  bool insecure_skip_tls_verify = false;
  std::string request_timeout = "0";
  std::string as;
  std::vector<std::string> as_groups;
  std::string as_uid;
  std::string username;
  std::string password;
  std::string cache_dir;
  bool disable_compression = false;
};

}  // namespace kpt::kube
