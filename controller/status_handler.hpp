#pragma once

#include "kube/api_client.hpp"
#include "model/trainjob/status_request.hpp"
#include "util/expected.hpp"

#include <optional>
#include <string>

namespace kpt::controller {

class Logger;

/// Checks a bearer token as Trainer's status server does: valid (signature, expiry), issued for
/// `audience`, to a service account of the job's namespace.
class TokenReviewer {
 public:
  virtual ~TokenReviewer() = default;
  /// The namespace of the service account the token was issued to, when the token is valid for
  /// `audience`; nullopt when it is not; an error when the question could not be asked.
  virtual Expected<std::optional<std::string>> review(const std::string& token,
                                                      const std::string& audience) = 0;
};

/// The real one: a TokenReview (authentication.k8s.io/v1) with spec.audiences = [audience], the
/// equivalent of Trainer's local OIDC check (it needs `create` on tokenreviews, not the issuer's
/// discovery documents, so it works from outside the cluster too).
class ApiTokenReviewer final : public TokenReviewer {
 public:
  explicit ApiTokenReviewer(kube::ApiClient& api) : m_api(api) {}
  Expected<std::optional<std::string>> review(const std::string& token, const std::string& audience) override;

 private:
  kube::ApiClient& m_api;
};

/// One request as the HTTP layer read it: the body at most 64 KiB (`body_over_limit` when more came).
struct StatusRequest {
  std::string method;
  std::string path;
  std::string authorization;
  std::optional<long long> content_length;
  std::string body;
  bool body_over_limit = false;
};

/// Trainer's status endpoint without the HTTP: in its order, a declared body over 64 KiB (413), the
/// route (404), the token (403; 500 when it cannot be checked), the body (422), then the write:
/// a TrainJob's status.trainerStatus by server-side apply on its status subresource (field manager
/// trainer-status, forced), a PyTorchJob's two progress annotations by merge patch after the
/// CRD's rules checked here. The API server's 422 and 404 become Trainer's answers.
class StatusHandler {
 public:
  StatusHandler(kube::ApiClient& api, TokenReviewer& reviewer, Logger& log)
      : m_api(api), m_reviewer(reviewer), m_log(log) {}

  model::trainjob::StatusAnswer handle(const StatusRequest& request);

 private:
  model::trainjob::StatusAnswer write(const model::trainjob::StatusTarget& target,
                                      const model::trainjob::TrainerStatus& status);

  kube::ApiClient& m_api;
  TokenReviewer& m_reviewer;
  Logger& m_log;
};

}  // namespace kpt::controller
