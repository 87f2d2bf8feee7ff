#pragma once

#include "apiserver/exec_provider.hpp"
#include "local/local_node.hpp"

namespace kpt::local {

/// Serves pods/exec from the local node: the command runs as a local process with the running
/// container's env (as the node computed it, name resolution included) and working directory.
class NodeExecProvider final : public apiserver::ExecProvider {
 public:
  explicit NodeExecProvider(LocalNode& node) : m_node(node) {}
  std::optional<Error> check(const apiserver::ExecRequest& request, const nlohmann::json& pod) override;
  std::unique_ptr<apiserver::ExecProcess> start(const apiserver::ExecRequest& request,
                                                const nlohmann::json& pod,
                                                apiserver::ExecStartError& error) override;

 private:
  LocalNode& m_node;
};

}  // namespace kpt::local
