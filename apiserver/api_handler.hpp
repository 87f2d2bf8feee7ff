#pragma once

#include "apiserver/exec_provider.hpp"
#include "apiserver/faults.hpp"
#include "apiserver/http_types.hpp"
#include "apiserver/log_provider.hpp"
#include "apiserver/resource_ops.hpp"
#include "apiserver/resources.hpp"
#include "apiserver/service_account_tokens.hpp"
#include "apiserver/store.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace kpt::apiserver {

/// Which object or collection a request names.
struct Target {
  ResourcePtr resource;
  std::string ns;
  std::string name;
  std::string subresource;
};

/// The whole Kubernetes REST surface as a function of a transport-neutral request:
/// discovery, OpenAPI, the verbs, watch streams, logs and fault injection. ApiServer puts
/// it behind HTTP(S); tests may call it directly.
class ApiHandler {
 public:
  ApiHandler(Store& store, ResourceRegistry& registry, FaultInjector& faults);

  HttpResponse handle(const HttpRequest& request);

  void set_log_provider(std::shared_ptr<LogProvider> provider);
  /// Where pods/exec runs commands (the local node); nullptr restores "no node".
  void set_exec_provider(std::shared_ptr<ExecProvider> provider);
  void set_server_address(std::string address) { m_server_address = std::move(address); }
  /// gitVersion's build metadata in /version (see version_info).
  void set_version_build(std::string build) { m_version_build = std::move(build); }
  /// What service account tokens are signed with (the server's bearer token): see ServiceAccountTokens.
  void set_service_account_secret(const std::string& secret) { m_tokens = ServiceAccountTokens(secret); }
  /// How long a watch may stay idle before a BOOKMARK is sent (when the client allows them).
  void set_bookmark_interval(std::chrono::milliseconds interval) { m_bookmark_interval = interval; }

 private:
  HttpResponse handle_api(const HttpRequest& request, const std::string& group, const std::string& version,
                          const std::vector<std::string>& rest);
  HttpResponse handle_openapi(const HttpRequest& request, const std::vector<std::string>& segments);
  /// GET /openapi/v2, as protobuf when the client asks for it (client-go does), else JSON.
  HttpResponse handle_openapi_v2(const HttpRequest& request);
  HttpResponse do_get(const HttpRequest& request, const Target& t);
  HttpResponse do_list(const HttpRequest& request, const Target& t);
  HttpResponse do_watch(const HttpRequest& request, const Target& t);
  HttpResponse do_log(const HttpRequest& request, const Target& t);
  HttpResponse do_exec(const HttpRequest& request, const Target& t);
  HttpResponse do_create(const HttpRequest& request, const Target& t);
  HttpResponse do_update(const HttpRequest& request, const Target& t);
  HttpResponse do_patch(const HttpRequest& request, const Target& t);
  HttpResponse do_delete(const HttpRequest& request, const Target& t);
  HttpResponse do_binding(const HttpRequest& request, const Target& t);
  /// TokenRequest: POST serviceaccounts/NAME/token.
  HttpResponse do_token_request(const HttpRequest& request, const Target& t);
  HttpResponse render(const HttpRequest& request, const ResourceInfo& res, const nlohmann::json& obj,
                      int status);

  Store& m_store;
  ResourceRegistry& m_registry;
  ResourceOps m_ops;
  FaultInjector& m_faults;
  std::shared_ptr<LogProvider> m_logs;
  std::shared_ptr<ExecProvider> m_exec;
  std::string m_server_address = "127.0.0.1:6443";
  std::string m_version_build;
  std::chrono::milliseconds m_bookmark_interval{2000};
  ServiceAccountTokens m_tokens;
  /// /openapi/v2 in both encodings and the registry generation it was built at: rebuilt when a
  /// CRD changes what is served, never per request.
  struct OpenApiV2 {
    std::uint64_t generation = 0;
    std::string json;
    std::string protobuf;
  };
  std::mutex m_openapi_v2_mutex;
  std::shared_ptr<const OpenApiV2> m_openapi_v2;
};

/// Splits a path into its non-empty segments.
std::vector<std::string> path_segments(const std::string& path);
/// The `Warning` header value for a warning text (`299 - "text"`).
std::string warning_header(const std::string& text);
/// Whether an Accept header asks for a meta.k8s.io Table.
bool wants_table(const std::string& accept);

}  // namespace kpt::apiserver
