#include "local/node_exec_provider.hpp"

#include "local/exec_process.hpp"

namespace kpt::local {

std::optional<Error> NodeExecProvider::check(const apiserver::ExecRequest& request,
                                             const nlohmann::json& /*pod*/) {
  auto launch = m_node.running_container(request.ns, request.pod, request.container);
  if (!launch) return apiserver::bad_request(launch.error().message);
  return std::nullopt;
}

std::unique_ptr<apiserver::ExecProcess> NodeExecProvider::start(const apiserver::ExecRequest& request,
                                                                const nlohmann::json& /*pod*/,
                                                                apiserver::ExecStartError& error) {
  auto launch = m_node.running_container(request.ns, request.pod, request.container);
  if (!launch) {
    error.message = launch.error().message;
    return nullptr;
  }
  ExecSpec spec;
  spec.argv = request.command;
  spec.env = launch->env;
  spec.workdir = launch->workdir;
  spec.with_stdin = request.with_stdin;
  spec.tty = request.tty;
  return start_exec_process(spec, error.message);
}

}  // namespace kpt::local
