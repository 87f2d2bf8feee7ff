#include "plugin/follow/last_output.hpp"

#include "local/log_store.hpp"
#include "model/k8s/object_meta.hpp"
#include "plugin/follow/job_view.hpp"
#include "util/json_access.hpp"
#include "util/time.hpp"

#include <nlohmann/json.hpp>

#include <sys/stat.h>

namespace kpt::plugin {

namespace {

using nlohmann::json;

class ApiProbe final : public LastOutputProbe {
 public:
  explicit ApiProbe(kube::ApiClient& api) : m_api(api) {}
  std::optional<WallTime> last_output(const json& pod, const std::string& container) override {
    const std::string ns = model::k8s::namespace_of(pod);
    const std::string name = model::k8s::name_of(pod);
    auto text = m_api.get_raw(kube::resources::pods().object_path(ns, name, "log") +
                              "?container=" + container + "&tailLines=1&timestamps=true");
    if (!text) return std::nullopt;
    return line_timestamp(*text);
  }

 private:
  kube::ApiClient& m_api;
};

class LocalProbe final : public LastOutputProbe {
 public:
  explicit LocalProbe(std::string dir) : m_store(std::move(dir)) {}
  std::optional<WallTime> last_output(const json& pod, const std::string& container) override {
    const json cs = container_status(pod, container);
    // The local node names a run's log by its restart count, which is the running run's index.
    const std::string file =
        m_store.path(model::k8s::namespace_of(pod), model::k8s::name_of(pod), model::k8s::uid_of(pod),
                     container, static_cast<int>(util::int_at(cs, "restartCount").value_or(0)));
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0 || st.st_size == 0) return std::nullopt;
    return WallTime(std::chrono::seconds(st.st_mtim.tv_sec));
  }

 private:
  local::LogStore m_store;
};

}  // namespace

std::unique_ptr<LastOutputProbe> api_last_output(kube::ApiClient& api) {
  return std::make_unique<ApiProbe>(api);
}

std::unique_ptr<LastOutputProbe> local_last_output(std::string pod_log_dir) {
  return std::make_unique<LocalProbe>(std::move(pod_log_dir));
}

std::optional<WallTime> run_started(const json& pod, const std::string& container) {
  const json cs = container_status(pod, container);
  const json& state = util::object_at(cs, "state");
  if (!state.is_object() || !state.contains("running") || !state["running"].is_object()) return std::nullopt;
  const auto t = util::parse_time(util::string_at(state["running"], "startedAt"));
  if (!t) return std::nullopt;
  return WallTime(*t);
}

}  // namespace kpt::plugin
