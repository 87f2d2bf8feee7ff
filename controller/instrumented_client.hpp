#pragma once

#include "controller/metrics.hpp"
#include "kube/api_client.hpp"

#include <chrono>
#include <optional>

namespace kpt::controller {

/// An ApiClient decorator that counts every request by verb, resource and HTTP code into Metrics,
/// with its latency (code 200 for success, the Status code for API errors, 0 for transport failures).
class InstrumentedClient final : public kube::ApiClient {
 public:
  InstrumentedClient(kube::ApiClient& inner, Metrics& metrics) : m_inner(inner), m_metrics(metrics) {}

  Expected<nlohmann::json> get(const kube::ResourceRef& ref, const std::string& ns,
                               const std::string& name) override;
  Expected<kube::ListResult> list(const kube::ResourceRef& ref, const std::string& ns,
                                  const kube::ListOptions& opts) override;
  Expected<void> watch(const kube::ResourceRef& ref, const std::string& ns, const kube::ListOptions& opts,
                       const std::function<bool(const kube::WatchEvent&)>& on_event,
                       const std::atomic<bool>* cancel) override;
  Expected<nlohmann::json> create(const kube::ResourceRef& ref, const std::string& ns,
                                  const nlohmann::json& obj, const kube::WriteOptions& opts = {}) override;
  Expected<nlohmann::json> update(const kube::ResourceRef& ref, const std::string& ns,
                                  const nlohmann::json& obj, const kube::WriteOptions& opts = {}) override;
  Expected<nlohmann::json> update_status(const kube::ResourceRef& ref, const std::string& ns,
                                         const nlohmann::json& obj) override;
  Expected<nlohmann::json> patch(const kube::ResourceRef& ref, const std::string& ns, const std::string& name,
                                 kube::PatchType type, const std::string& body,
                                 const kube::WriteOptions& opts = {}) override;
  Expected<void> remove(const kube::ResourceRef& ref, const std::string& ns, const std::string& name,
                        const kube::DeleteOptions& opts = {}) override;
  Expected<std::string> get_raw(const std::string& path_and_query) override;
  Expected<void> stream_raw(const std::string& path_and_query,
                            const std::function<bool(std::string_view)>& on_data,
                            const std::atomic<bool>* cancel) override;
  Expected<nlohmann::json> post_raw(const std::string& path, const nlohmann::json& body) override;
  std::vector<std::string> take_warnings() override { return m_inner.take_warnings(); }

 private:
  /// Runs `call` and counts it: `resource` is the plural ("" for raw paths); watches and streams
  /// are counted without latency, since they stay open.
  template <class F>
  auto counted(const char* verb, const std::string& resource, bool timed, F&& call) {
    const auto started = std::chrono::steady_clock::now();
    auto result = call();
    int code = 200;
    if (!result) code = result.error().code == ErrorCode::api ? result.error().http_status : 0;
    std::optional<std::chrono::duration<double>> took;
    if (timed) took = std::chrono::steady_clock::now() - started;
    m_metrics.count_api_request(verb, resource, code, took);
    return result;
  }

  kube::ApiClient& m_inner;
  Metrics& m_metrics;
};

}  // namespace kpt::controller
