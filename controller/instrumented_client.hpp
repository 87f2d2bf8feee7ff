#pragma once

#include "controller/metrics.hpp"
#include "kube/api_client.hpp"

namespace kpt::controller {

/// An ApiClient decorator that counts every request by verb and HTTP code into Metrics
/// (code 200 for success, the Status code for API errors, 0 for transport failures).
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
  template <class R>
  R counted(const char* verb, R result) {
    int code = 200;
    if (!result) code = result.error().code == ErrorCode::api ? result.error().http_status : 0;
    m_metrics.count_api_request(verb, code);
    return result;
  }

  kube::ApiClient& m_inner;
  Metrics& m_metrics;
};

}  // namespace kpt::controller
