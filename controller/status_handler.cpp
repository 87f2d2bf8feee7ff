#include "controller/status_handler.hpp"

#include "controller/logger.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace kpt::controller {

namespace tj = model::trainjob;

namespace {

using nlohmann::json;

constexpr std::string_view k_service_account_prefix = "system:serviceaccount:";

}  // namespace

Expected<std::optional<std::string>> ApiTokenReviewer::review(const std::string& token,
                                                              const std::string& audience) {
  const json request = {{"apiVersion", "authentication.k8s.io/v1"},
                        {"kind", "TokenReview"},
                        {"spec", {{"token", token}, {"audiences", json::array({audience})}}}};
  auto answer = m_api.post_raw("/apis/authentication.k8s.io/v1/tokenreviews", request);
  if (!answer) return answer.error();
  const json status = answer->value("status", json::object());
  if (!status.is_object() || !status.value("authenticated", false)) return std::optional<std::string>{};
  const json audiences = status.value("audiences", json::array());
  if (!audiences.is_array() ||
      std::find(audiences.begin(), audiences.end(), json(audience)) == audiences.end())
    return std::optional<std::string>{};
  const std::string username = status.value("/user/username"_json_pointer, std::string{});
  if (username.rfind(k_service_account_prefix, 0) != 0) return std::optional<std::string>{};
  const std::string rest = username.substr(k_service_account_prefix.size());
  const auto colon = rest.find(':');
  if (colon == std::string::npos || colon == 0) return std::optional<std::string>{};
  return std::optional<std::string>{rest.substr(0, colon)};
}

tj::StatusAnswer StatusHandler::handle(const StatusRequest& request) {
  if (request.content_length && *request.content_length > static_cast<long long>(tj::k_status_body_limit))
    return tj::status_payload_too_large();
  const auto target = tj::route_status_request(request.method, request.path);
  if (!target) return tj::status_route_not_found();
  const std::string token = tj::bearer_credential(request.authorization);
  if (token.empty()) return tj::status_forbidden();
  auto reviewed = m_reviewer.review(token, tj::status_audience(*target));
  if (!reviewed) {
    m_log.error("cannot review a status token", {{"error", reviewed.error().message}});
    return tj::status_internal_error();
  }
  if (!*reviewed || **reviewed != target->ns) return tj::status_forbidden();
  if (request.body_over_limit) return tj::status_invalid_payload();
  auto update = tj::decode_status_update(request.body);
  if (!update) return tj::status_invalid_payload();
  if (update->trainer_status) {
    auto written = write(*target, *update->trainer_status);
    if (written.code != 200) return written;
  }
  return {200, tj::encode_status_update(*update)};
}

tj::StatusAnswer StatusHandler::write(const tj::StatusTarget& target, const tj::TrainerStatus& status) {
  Expected<json> written = make_error(ErrorCode::internal, "not written");
  if (target.kind == tj::StatusTarget::Kind::trainjob) {
    kube::WriteOptions apply;
    apply.field_manager = tj::k_status_field_manager;
    apply.force = true;
    apply.subresource = "status";
    written = m_api.patch(kube::resources::trainjobs(), target.ns, target.name, kube::PatchType::apply,
                          tj::trainjob_status_apply(target, status).dump(), apply);
  } else {
    // An annotation has no schema: the TrainJob CRD's rules are checked here instead.
    if (const auto errors = tj::trainer_status_errors(status); !errors.empty())
      return tj::status_rejected(tj::invalid_object_message("PyTorchJob.kubeflow.org", target.name, errors));
    written = m_api.patch(kube::resources::pytorchjobs(), target.ns, target.name, kube::PatchType::merge,
                          tj::pytorchjob_progress_patch(status).dump());
  }
  if (written) return {200, {}};
  const Error& e = written.error();
  if (e.code == ErrorCode::api && (e.http_status == 422 || e.http_status == 400)) {
    return tj::status_rejected(e.message.empty() ? "Validation failed" : e.message);
  }
  if (kube::is_not_found(e)) return tj::status_job_not_found();
  m_log.error("cannot write progress", {{"job", target.ns + "/" + target.name}, {"error", e.message}});
  return tj::status_internal_error();
}

}  // namespace kpt::controller
