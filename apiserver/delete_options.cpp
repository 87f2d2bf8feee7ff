#include "apiserver/delete_options.hpp"

#include "apiserver/body_limits.hpp"
#include "apiserver/protobuf_body.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <optional>

namespace kpt::apiserver {

namespace {

using json = nlohmann::json;

/// The options as given, before the propagation they imply is settled.
struct RawOptions {
  std::optional<std::string> propagation;
  std::optional<bool> orphan_dependents;
  bool dry_run = false;
  std::string precondition_uid;
  std::string precondition_rv;
};

RawOptions from_query(const HttpRequest& req) {
  RawOptions raw;
  if (req.has_param("propagationPolicy")) raw.propagation = req.param("propagationPolicy");
  if (req.has_param("orphanDependents")) raw.orphan_dependents = req.flag("orphanDependents");
  raw.dry_run = req.param("dryRun") == "All";
  return raw;
}

Error undecodable(const std::string& why) {
  return bad_request("the body of the request is not a DeleteOptions: " + why);
}

/// The options of a DeleteOptions object (the JSON body, or the protobuf one in its JSON form).
Expected<RawOptions> from_object(const json& opts) {
  if (!opts.is_object()) return undecodable("it is not a JSON object");
  const std::string kind = opts.contains("kind") && opts["kind"].is_string() ? opts["kind"] : "DeleteOptions";
  if (kind != "DeleteOptions") return undecodable("its kind is " + util::quote(kind));
  RawOptions raw;
  const auto text = [&](const json& obj, const char* field) -> Expected<std::optional<std::string>> {
    if (!obj.contains(field) || obj[field].is_null()) return std::optional<std::string>{};
    if (!obj[field].is_string()) return undecodable(std::string(field) + " is not a string");
    return std::optional<std::string>{obj[field].get<std::string>()};
  };
  auto propagation = text(opts, "propagationPolicy");
  if (!propagation) return propagation.error();
  raw.propagation = propagation.value();
  if (opts.contains("orphanDependents") && !opts["orphanDependents"].is_null()) {
    if (!opts["orphanDependents"].is_boolean()) return undecodable("orphanDependents is not a boolean");
    raw.orphan_dependents = opts["orphanDependents"].get<bool>();
  }
  if (opts.contains("dryRun") && opts["dryRun"].is_array()) {
    for (const auto& d : opts["dryRun"]) raw.dry_run = raw.dry_run || d == "All";
  }
  if (opts.contains("preconditions") && opts["preconditions"].is_object()) {
    const auto& pre = opts["preconditions"];
    auto uid = text(pre, "uid");
    auto rv = text(pre, "resourceVersion");
    if (!uid) return uid.error();
    if (!rv) return rv.error();
    raw.precondition_uid = uid.value().value_or("");
    raw.precondition_rv = rv.value().value_or("");
  }
  return raw;
}

Expected<RawOptions> from_body(const HttpRequest& req) {
  if (is_protobuf_content_type(req.header("content-type"))) {
    auto opts = decode_protobuf_delete_options(req.body);
    if (!opts) return opts.error();
    return from_object(opts.value());
  }
  if (auto deep = json_too_deep(req.body)) return *deep;
  return from_object(json::parse(req.body, nullptr, false));
}

Error options_invalid(const std::string& message) {
  return invalid("meta.k8s.io", "DeleteOptions", "",
                 {{"FieldValueNotSupported", message, "propagationPolicy"}});
}

}  // namespace

Expected<DeleteOptions> delete_options_of(const HttpRequest& req) {
  RawOptions raw = from_query(req);
  const bool has_body = req.body.find_first_not_of(" \t\r\n") != std::string::npos;
  if (has_body) {
    auto body = from_body(req);
    if (!body) return body.error();
    body.value().dry_run = body.value().dry_run || raw.dry_run;
    raw = std::move(body.value());
  }
  DeleteOptions out;
  out.dry_run = raw.dry_run;
  out.precondition_uid = raw.precondition_uid;
  out.precondition_rv = raw.precondition_rv;
  out.orphan_dependents = raw.orphan_dependents;
  if (raw.propagation && raw.orphan_dependents) {
    return invalid("meta.k8s.io", "DeleteOptions", "",
                   {{"FieldValueInvalid",
                     "Invalid value: \"" + *raw.propagation +
                         "\": orphanDependents and deletionPropagation cannot be both set",
                     "propagationPolicy"}});
  }
  if (raw.orphan_dependents) {
    out.propagation = *raw.orphan_dependents ? "Orphan" : "Background";
    return out;
  }
  if (!raw.propagation || raw.propagation->empty()) return out;
  const auto& p = *raw.propagation;
  if (p != "Foreground" && p != "Background" && p != "Orphan") {
    return options_invalid("Unsupported value: \"" + p +
                           "\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"");
  }
  out.propagation = p;
  return out;
}

}  // namespace kpt::apiserver
