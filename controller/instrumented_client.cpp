#include "controller/instrumented_client.hpp"

namespace kpt::controller {

Expected<nlohmann::json> InstrumentedClient::get(const kube::ResourceRef& ref, const std::string& ns,
                                                 const std::string& name) {
  return counted("get", ref.resource, true, [&] { return m_inner.get(ref, ns, name); });
}
Expected<kube::ListResult> InstrumentedClient::list(const kube::ResourceRef& ref, const std::string& ns,
                                                    const kube::ListOptions& opts) {
  return counted("list", ref.resource, true, [&] { return m_inner.list(ref, ns, opts); });
}
Expected<void> InstrumentedClient::watch(const kube::ResourceRef& ref, const std::string& ns,
                                         const kube::ListOptions& opts,
                                         const std::function<bool(const kube::WatchEvent&)>& on_event,
                                         const std::atomic<bool>* cancel) {
  return counted("watch", ref.resource, false,
                 [&] { return m_inner.watch(ref, ns, opts, on_event, cancel); });
}
Expected<nlohmann::json> InstrumentedClient::create(const kube::ResourceRef& ref, const std::string& ns,
                                                    const nlohmann::json& obj,
                                                    const kube::WriteOptions& opts) {
  return counted("create", ref.resource, true, [&] { return m_inner.create(ref, ns, obj, opts); });
}
Expected<nlohmann::json> InstrumentedClient::update(const kube::ResourceRef& ref, const std::string& ns,
                                                    const nlohmann::json& obj,
                                                    const kube::WriteOptions& opts) {
  return counted("update", ref.resource, true, [&] { return m_inner.update(ref, ns, obj, opts); });
}
Expected<nlohmann::json> InstrumentedClient::update_status(const kube::ResourceRef& ref,
                                                           const std::string& ns, const nlohmann::json& obj) {
  return counted("update_status", ref.resource, true, [&] { return m_inner.update_status(ref, ns, obj); });
}
Expected<nlohmann::json> InstrumentedClient::patch(const kube::ResourceRef& ref, const std::string& ns,
                                                   const std::string& name, kube::PatchType type,
                                                   const std::string& body, const kube::WriteOptions& opts) {
  return counted("patch", ref.resource, true, [&] { return m_inner.patch(ref, ns, name, type, body, opts); });
}
Expected<void> InstrumentedClient::remove(const kube::ResourceRef& ref, const std::string& ns,
                                          const std::string& name, const kube::DeleteOptions& opts) {
  return counted("delete", ref.resource, true, [&] { return m_inner.remove(ref, ns, name, opts); });
}
Expected<std::string> InstrumentedClient::get_raw(const std::string& path_and_query) {
  return counted("get", "", true, [&] { return m_inner.get_raw(path_and_query); });
}
Expected<void> InstrumentedClient::stream_raw(const std::string& path_and_query,
                                              const std::function<bool(std::string_view)>& on_data,
                                              const std::atomic<bool>* cancel) {
  return counted("get", "", false, [&] { return m_inner.stream_raw(path_and_query, on_data, cancel); });
}
Expected<nlohmann::json> InstrumentedClient::post_raw(const std::string& path, const nlohmann::json& body) {
  return counted("create", "", true, [&] { return m_inner.post_raw(path, body); });
}

}  // namespace kpt::controller
