#pragma once

#include "apiserver/log_provider.hpp"
#include "local/local_node.hpp"

namespace kpt::local {

/// Serves pods/log from the files the local node writes. A followed log ends when the
/// container's current run has ended and every byte of it was sent.
class NodeLogProvider final : public apiserver::LogProvider {
 public:
  explicit NodeLogProvider(const LocalNode& node) : m_node(node) {}
  Expected<std::unique_ptr<apiserver::LogStream>> open(const apiserver::LogRequest& request,
                                                       const nlohmann::json& pod) override;

 private:
  const LocalNode& m_node;
};

}  // namespace kpt::local
