#include "apiserver/status.hpp"

namespace kpt::apiserver {

std::string qualified_resource(const std::string& group, const std::string& resource) {
  return group.empty() ? resource : resource + "." + group;
}

namespace {

nlohmann::json name_details(const std::string& group, const std::string& kind, const std::string& name) {
  nlohmann::json d = nlohmann::json::object();
  if (!name.empty()) d["name"] = name;
  if (!group.empty()) d["group"] = group;
  d["kind"] = kind;
  return d;
}

}  // namespace

ApiError not_found(const std::string& group, const std::string& resource, const std::string& name) {
  return {404, "NotFound", qualified_resource(group, resource) + " \"" + name + "\" not found",
          name_details(group, resource, name)};
}

ApiError already_exists(const std::string& group, const std::string& resource, const std::string& name) {
  return {409, "AlreadyExists", qualified_resource(group, resource) + " \"" + name + "\" already exists",
          name_details(group, resource, name)};
}

ApiError conflict(const std::string& group, const std::string& resource, const std::string& name,
                  const std::string& why) {
  return {
      409, "Conflict",
      "Operation cannot be fulfilled on " + qualified_resource(group, resource) + " \"" + name + "\": " + why,
      name_details(group, resource, name)};
}

ApiError invalid(const std::string& group, const std::string& kind, const std::string& name,
                 const std::vector<StatusCause>& causes) {
  std::string message = (group.empty() ? kind : kind + "." + group) + " \"" + name + "\" is invalid: ";
  auto d = name_details(group, kind, name);
  d["causes"] = nlohmann::json::array();
  if (causes.size() > 1) message += "[";
  for (std::size_t i = 0; i < causes.size(); ++i) {
    const auto& c = causes[i];
    if (i > 0) message += ", ";
    message += c.field.empty() ? c.message : c.field + ": " + c.message;
    d["causes"].push_back({{"reason", c.reason}, {"message", c.message}, {"field", c.field}});
  }
  if (causes.size() > 1) message += "]";
  return {422, "Invalid", message, d};
}

ApiError bad_request(const std::string& message) { return {400, "BadRequest", message, nullptr}; }

ApiError method_not_supported(const std::string& group, const std::string& resource,
                              const std::string& verb) {
  return {405, "MethodNotAllowed",
          verb + " is not supported on resources of kind \"" + qualified_resource(group, resource) + "\"",
          name_details(group, resource, "")};
}

ApiError gone(const std::string& message) { return {410, "Expired", message, nullptr}; }

ApiError unsupported_media_type(const std::string& content_type) {
  return {415, "UnsupportedMediaType",
          "the body of the request was in an unknown format - accepted media types "
          "include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml; "
          "got '" +
              content_type + "'",
          nullptr};
}

ApiError path_not_found() {
  return {404, "NotFound", "the server could not find the requested resource", nullptr};
}

nlohmann::json status_json(const ApiError& error) {
  nlohmann::json s = {
      {"kind", "Status"},    {"apiVersion", "v1"},       {"metadata", nlohmann::json::object()},
      {"status", "Failure"}, {"message", error.message}, {"reason", error.reason},
      {"code", error.code}};
  if (!error.details.is_null() && !error.details.empty()) s["details"] = error.details;
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

HttpResponse error_response(const ApiError& error) {
  HttpResponse r = json_response(error.code, status_json(error));
  if (error.details.is_object() && error.details.contains("retryAfterSeconds")) {
    r.headers.emplace_back("Retry-After", std::to_string(error.details["retryAfterSeconds"].get<int>()));
  }
  return r;
}

HttpResponse json_response(int status, const nlohmann::json& body) {
  HttpResponse r;
  r.status = status;
  r.body = body.dump();
  return r;
}

}  // namespace kpt::apiserver
