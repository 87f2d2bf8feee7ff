#include "apiserver/status.hpp"

#include "apiserver/body_limits.hpp"

namespace kpt::apiserver {

std::string qualified_resource(const std::string& group, const std::string& resource) {
  return group.empty() ? resource : resource + "." + group;
}

namespace {

ErrorDetails name_details(const std::string& group, const std::string& kind, const std::string& name) {
  ErrorDetails d;
  d.name = name;
  d.group = group;
  d.kind = kind;
  return d;
}

nlohmann::json details_json(const ErrorDetails& d) {
  nlohmann::json j = nlohmann::json::object();
  if (!d.name.empty()) j["name"] = d.name;
  if (!d.group.empty()) j["group"] = d.group;
  if (!d.kind.empty()) j["kind"] = d.kind;
  if (!d.causes.empty()) {
    j["causes"] = nlohmann::json::array();
    for (const auto& c : d.causes)
      j["causes"].push_back({{"reason", c.reason}, {"message", c.message}, {"field", c.field}});
  }
  if (d.retry_after_seconds > 0) j["retryAfterSeconds"] = d.retry_after_seconds;
  return j;
}

}  // namespace

Error not_found(const std::string& group, const std::string& resource, const std::string& name) {
  return make_api_error(404, "NotFound", qualified_resource(group, resource) + " \"" + name + "\" not found",
                        name_details(group, resource, name));
}

Error already_exists(const std::string& group, const std::string& resource, const std::string& name) {
  return make_api_error(409, "AlreadyExists",
                        qualified_resource(group, resource) + " \"" + name + "\" already exists",
                        name_details(group, resource, name));
}

Error conflict(const std::string& group, const std::string& resource, const std::string& name,
               const std::string& why) {
  return make_api_error(
      409, "Conflict",
      "Operation cannot be fulfilled on " + qualified_resource(group, resource) + " \"" + name + "\": " + why,
      name_details(group, resource, name));
}

Error invalid(const std::string& group, const std::string& kind, const std::string& name,
              const std::vector<StatusCause>& causes) {
  std::string message = (group.empty() ? kind : kind + "." + group) + " \"" + name + "\" is invalid: ";
  auto d = name_details(group, kind, name);
  if (causes.size() > 1) message += "[";
  for (std::size_t i = 0; i < causes.size(); ++i) {
    const auto& c = causes[i];
    if (i > 0) message += ", ";
    message += c.field.empty() ? c.message : c.field + ": " + c.message;
  }
  if (causes.size() > 1) message += "]";
  d.causes = causes;
  return make_api_error(422, "Invalid", message, std::move(d));
}

Error bad_request(const std::string& message) { return make_api_error(400, "BadRequest", message); }

Error method_not_supported(const std::string& group, const std::string& resource, const std::string& verb) {
  return make_api_error(
      405, "MethodNotAllowed",
      verb + " is not supported on resources of kind \"" + qualified_resource(group, resource) + "\"",
      name_details(group, resource, ""));
}

Error gone(const std::string& message) { return make_api_error(410, "Expired", message); }

Error unsupported_media_type(const std::string& content_type) {
  return make_api_error(415, "UnsupportedMediaType",
                        "the body of the request was in an unknown format - accepted media types "
                        "include: application/json-patch+json, application/merge-patch+json, "
                        "application/apply-patch+yaml; got '" +
                            content_type + "'");
}

Error path_not_found() {
  return make_api_error(404, "NotFound", "the server could not find the requested resource");
}

nlohmann::json status_json(const Error& error) {
  // An error that is not the API's own (a broken invariant surfaced as a value) is a 500.
  const bool api = error.http_status > 0;
  nlohmann::json s = {{"kind", "Status"},
                      {"apiVersion", "v1"},
                      {"metadata", nlohmann::json::object()},
                      {"status", "Failure"},
                      {"message", error.message},
                      {"reason", api ? error.reason : "InternalError"},
                      {"code", api ? error.http_status : 500}};
  if (!error.details.empty()) s["details"] = details_json(error.details);
  return s;
}

nlohmann::json success_status(const nlohmann::json& details) {
  nlohmann::json s = {{"kind", "Status"},
                      {"apiVersion", "v1"},
                      {"metadata", nlohmann::json::object()},
                      {"status", "Success"}};
  if (!details.is_null()) s["details"] = details;
  return s;
}

HttpResponse error_response(const Error& error) {
  HttpResponse r = json_response(error.http_status > 0 ? error.http_status : 500, status_json(error));
  r.close_connection = refuses_body(error);
  if (error.details.retry_after_seconds > 0) {
    r.headers.emplace_back("Retry-After", std::to_string(error.details.retry_after_seconds));
  }
  return r;
}

HttpResponse json_response(int status, const nlohmann::json& body) {
  HttpResponse r;
  r.status = status;
  // A message can echo request bytes (a name in the URL) that are not UTF-8: replaced with U+FFFD,
  // as Go's encoding/json does, instead of nlohmann's throw ending the server.
  r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return r;
}

}  // namespace kpt::apiserver
