#pragma once

#include "kube/api_client.hpp"
#include "util/clock.hpp"

#include <nlohmann/json_fwd.hpp>

#include <atomic>
#include <string>

namespace kpt::controller {

/// Writes core v1 Events about the objects of one kind a reconciler acts on (best effort: a failure to record
/// one never fails a reconcile). Names are `<object>.<time><sequence>` in hex, unique per process.
/// The component every Event of our controller names.
inline constexpr const char* k_event_component = "kubectl-pytorch-controller";

class EventRecorder {
 public:
  /// Events about objects of `kind` in `api_version`, from `component` (source.component and
  /// reportingComponent: k_event_component for our controller, not Kubeflow's component names, so
  /// that nobody mistakes ours for the operator's) and `instance` (reportingInstance: the lease
  /// identity, which replica wrote it); nothing is written unless `enabled`.
  EventRecorder(kube::ApiClient& client, const util::Clock& clock, std::string api_version, std::string kind,
                std::string component, bool enabled, std::string instance = {})
      : m_client(client),
        m_clock(clock),
        m_api_version(std::move(api_version)),
        m_kind(std::move(kind)),
        m_component(std::move(component)),
        m_instance(std::move(instance)),
        m_enabled(enabled) {}

  /// An Event whose involvedObject is `object` (its name, namespace and uid).
  void record(const nlohmann::json& object, const std::string& type, const std::string& reason,
              const std::string& message);

 private:
  kube::ApiClient& m_client;
  const util::Clock& m_clock;
  std::string m_api_version;
  std::string m_kind;
  std::string m_component;
  std::string m_instance;
  bool m_enabled;
  std::atomic<unsigned long> m_sequence{0};
};

}  // namespace kpt::controller
