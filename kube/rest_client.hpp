#pragma once

#include "kube/api_client.hpp"
#include "kube/connection_flags.hpp"
#include "kube/exec_credential.hpp"
#include "kube/http_transport.hpp"
#include "kube/resolved_config.hpp"

#include <chrono>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

namespace kpt::kube {

/// The field manager our server-side applies use.
inline constexpr const char* k_field_manager = "kubectl-pytorch";

struct RestOptions {
  int verbosity = 0;            ///< 6 URLs, 7 headers, 8 bodies
  std::ostream* log = nullptr;  ///< where -v logging goes (stderr)
  int max_retries = 5;          ///< extra attempts for retriable failures
  std::chrono::milliseconds backoff_base{200};
  std::chrono::milliseconds backoff_cap{5'000};
  std::chrono::seconds retry_after_cap{30};
  std::function<void(std::chrono::milliseconds)> sleep;  ///< default: std::this_thread::sleep_for
  std::uint64_t jitter_seed = 0;                         ///< 0: random
  CommandRunner* command_runner = nullptr;               ///< for exec plugins; default: a RealCommandRunner
  std::map<std::string, std::string> env;                ///< the environment exec plugins inherit
  bool stdin_is_terminal = false;
  ExecCredentialProvider::Clock clock;  ///< for exec credential expiry
};

/// Decodes a non-2xx response into Error{ErrorCode::api, message, status, reason}. The message is
/// the Status message (plus `field: message` causes when it does not list them), or a kubectl-like
/// sentence when the body is not a Status.
Error decode_status_error(int http_status, const std::string& body, const std::string& method);

/// Replaces every occurrence of the given secrets with "REDACTED".
std::string redact(std::string text, const std::vector<std::string>& secrets);

/// ApiClient over HTTP(S), with kubectl's auth, retries, Status errors, warnings and -v logging.
class RestClient final : public ApiClient {
 public:
  RestClient(ResolvedConfig config, std::unique_ptr<HttpTransport> transport, RestOptions options = {});
  ~RestClient() override;

  Expected<nlohmann::json> get(const ResourceRef& ref, const std::string& ns,
                               const std::string& name) override;
  Expected<ListResult> list(const ResourceRef& ref, const std::string& ns, const ListOptions& opts) override;
  Expected<void> watch(const ResourceRef& ref, const std::string& ns, const ListOptions& opts,
                       const std::function<bool(const WatchEvent&)>& on_event,
                       const std::atomic<bool>* cancel) override;
  Expected<nlohmann::json> create(const ResourceRef& ref, const std::string& ns, const nlohmann::json& obj,
                                  const WriteOptions& opts = {}) override;
  Expected<nlohmann::json> update(const ResourceRef& ref, const std::string& ns, const nlohmann::json& obj,
                                  const WriteOptions& opts = {}) override;
  Expected<nlohmann::json> update_status(const ResourceRef& ref, const std::string& ns,
                                         const nlohmann::json& obj) override;
  Expected<nlohmann::json> patch(const ResourceRef& ref, const std::string& ns, const std::string& name,
                                 PatchType type, const std::string& body,
                                 const WriteOptions& opts = {}) override;
  Expected<void> remove(const ResourceRef& ref, const std::string& ns, const std::string& name,
                        const DeleteOptions& opts = {}) override;
  Expected<std::string> get_raw(const std::string& path_and_query) override;
  Expected<void> stream_raw(const std::string& path_and_query,
                            const std::function<bool(std::string_view)>& on_data,
                            const std::atomic<bool>* cancel) override;
  Expected<nlohmann::json> post_raw(const std::string& path, const nlohmann::json& body) override;
  std::vector<std::string> take_warnings() override;

  [[nodiscard]] const ResolvedConfig& config() const { return m_config; }

 private:
  enum class Safety { safe, create };  ///< create: retried only when nothing reached the server
  struct Call {
    std::string method;
    std::string path;  ///< path and query
    std::string body;
    std::string content_type;
    Safety safety = Safety::safe;
  };

  Expected<HttpResponse> perform(const Call& call, const DataSink* sink, const std::atomic<bool>* cancel);
  Expected<HttpResponse> attempt(const Call& call, const DataSink* sink, const std::atomic<bool>* cancel,
                                 std::uint64_t* exec_generation);
  Expected<nlohmann::json> json_call(const Call& call);
  Expected<void> add_auth(HttpRequest& request, std::uint64_t* exec_generation);
  void log_request(const HttpRequest& request) const;
  void log_response(const HttpRequest& request, const HttpResponse& response, std::chrono::milliseconds took,
                    bool streamed) const;
  void collect_warnings(const HttpResponse& response);
  std::chrono::milliseconds backoff(int attempt);
  [[nodiscard]] std::vector<std::string> secrets() const;

  ResolvedConfig m_config;
  std::unique_ptr<HttpTransport> m_transport;
  RestOptions m_options;
  std::unique_ptr<CommandRunner> m_own_runner;
  std::unique_ptr<ExecCredentialProvider> m_exec;
  mutable std::mutex m_mutex;  ///< guards m_warnings, m_rng, m_exec_secrets
  std::vector<std::string> m_warnings;
  std::mt19937_64 m_rng;
  std::vector<std::string> m_exec_secrets;
};

/// Options of make_client beyond the flags.
struct ClientOptions {
  int verbosity = 0;
  std::ostream* log = nullptr;
  std::string cwd;  ///< default: the process's
  bool stdin_is_terminal = false;
  std::string service_account_dir = k_service_account_dir;
  /// For a best-effort look at a cluster (the release validate and env default to): fewer retries
  /// and a short connect timeout, so a configured but dead cluster costs a moment, not the whole
  /// retry budget. Negative / zero: the defaults (RestOptions::max_retries, 30 s).
  int max_retries = -1;
  std::chrono::milliseconds connect_timeout{0};
};

/// Resolves the flags and environment as kubectl would and builds a RestClient over libcurl.
Expected<std::unique_ptr<ApiClient>> make_client(const ConnectionFlags& flags,
                                                 const std::map<std::string, std::string>& env,
                                                 const ClientOptions& options = {});

/// The namespace commands default to: -n, else the context's, else in-cluster, else "default".
/// "default" when the configuration cannot be resolved.
std::string resolved_namespace(const ConnectionFlags& flags, const std::map<std::string, std::string>& env,
                               const ClientOptions& options = {});

}  // namespace kpt::kube
