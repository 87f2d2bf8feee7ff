#include "apiserver/api_handler.hpp"

#include "apiserver/body_limits.hpp"
#include "apiserver/delete_options.hpp"
#include "apiserver/discovery.hpp"
#include "apiserver/openapi_v2.hpp"
#include "apiserver/protobuf_body.hpp"
#include "apiserver/query_params.hpp"
#include "apiserver/table.hpp"
#include "model/k8s/object_meta.hpp"
#include "util/json_access.hpp"

#include <ctime>

namespace kpt::apiserver {

namespace {

using json = nlohmann::json;

/// The media type of gnostic's protobuf encoding of an OpenAPI v2 document: client-go asks for
/// "...spec.v2@v1.0+protobuf", and the answer says "...spec.v2.v1.0+protobuf" as kube-openapi's
/// handler does (Go's mime parser refuses the "@" in a Content-Type).
constexpr const char* k_openapi_v2_protobuf = "application/com.github.proto-openapi.spec.v2";

WriteFlags write_flags(const HttpRequest& req, const std::string& subresource) {
  WriteFlags f;
  f.dry_run = req.param("dryRun") == "All";
  f.field_validation = req.has_param("fieldValidation") ? req.param("fieldValidation") : "Warn";
  f.subresource = subresource;
  f.field_manager = req.param("fieldManager");
  return f;
}

/// The request's object: JSON, YAML, or (for the kinds kubectl's typed commands send) protobuf.
/// A protobuf object must be of the endpoint's own kind; `res` may be null for bodies of other types.
Expected<json> parse_body(const HttpRequest& req, const ResourceInfo* res) {
  const std::string type = req.header("content-type");
  if (is_protobuf_content_type(type)) {
    auto decoded = decode_protobuf_body(req.body);
    if (!decoded || res == nullptr) return decoded;
    const std::string kind = util::string_at(decoded.value(), "kind");
    const std::string api_version = util::string_at(decoded.value(), "apiVersion");
    if (kind != res->kind || api_version != res->group_version()) {
      return bad_request("the body holds a " + api_version + " " + kind + ", but this is the endpoint of " +
                         res->group_version() + " " + res->kind);
    }
    return decoded;
  }
  if (type.find("cbor") != std::string::npos) {
    return make_api_error(415, "UnsupportedMediaType",
                          "the body of the request was in an unknown format - accepted media types include: "
                          "application/json, application/yaml, application/vnd.kubernetes.protobuf");
  }
  if (type.rfind("application/yaml", 0) == 0) return parse_patch_body(PatchKind::apply, req.body);
  if (auto deep = json_too_deep(req.body)) return *deep;
  auto body = json::parse(req.body, nullptr, false);
  if (body.is_discarded()) {
    return bad_request(
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json, application/yaml");
  }
  return body;
}

/// 202 Accepted for a delete that leaves the object in place (finalizers, dependents) when the client
/// asked for cascading with the deprecated `orphanDependents: false`; 200 otherwise, even when the
/// object stays (k8s.io/apiserver pkg/endpoints/handlers/delete.go keeps 200 there so as not to
/// break older clients).
int delete_status(const DeleteResult& result, const DeleteOptions& options) {
  return result.pending && options.orphan_dependents == false ? 202 : 200;
}

HttpResponse write_response(ApiHandler& /*self*/, const Expected<WriteResult>& r, int ok_status,
                            const std::function<HttpResponse(const json&, int)>& render) {
  if (!r) return error_response(r.error());
  HttpResponse resp = render(r.value().object, r.value().created ? 201 : ok_status);
  for (const auto& w : r.value().warnings) resp.headers.emplace_back("Warning", warning_header(w));
  return resp;
}

}  // namespace

std::vector<std::string> path_segments(const std::string& path) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < path.size()) {
    const auto slash = path.find('/', start);
    const auto seg = path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (!seg.empty()) out.push_back(seg);
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return out;
}

std::string warning_header(const std::string& text) {
  std::string escaped;
  for (const char c : text) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return "299 - \"" + escaped + "\"";
}

bool wants_table(const std::string& accept) { return accept.find("as=Table") != std::string::npos; }

ApiHandler::ApiHandler(Store& store, ResourceRegistry& registry, FaultInjector& faults)
    : m_store(store),
      m_registry(registry),
      m_ops(store, registry),
      m_faults(faults),
      m_logs(std::make_shared<NoLogProvider>()),
      m_exec(std::make_shared<NoExecProvider>()) {
  // The namespaces every cluster has.
  const auto ns_res = m_registry.find("", "v1", "namespaces");
  for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    (void)m_ops.create(*ns_res, "", json{{"metadata", {{"name", ns}}}}, WriteFlags{});
  }
}

void ApiHandler::set_log_provider(std::shared_ptr<LogProvider> provider) {
  m_logs = provider ? std::move(provider) : std::make_shared<NoLogProvider>();
}

void ApiHandler::set_exec_provider(std::shared_ptr<ExecProvider> provider) {
  m_exec = provider ? std::move(provider) : std::make_shared<NoExecProvider>();
}

HttpResponse ApiHandler::handle(const HttpRequest& req) {
  const auto seg = path_segments(req.path);
  if (req.path == "/healthz" || req.path == "/livez" || req.path == "/readyz") {
    HttpResponse r;
    r.content_type = "text/plain";
    r.body = "ok";
    return r;
  }
  if (req.method == "GET" && req.path == "/version") return json_response(200, version_info(m_version_build));
  if (!seg.empty() && seg[0] == "openapi") return handle_openapi(req, seg);
  if (seg.empty() || (seg[0] != "api" && seg[0] != "apis")) return error_response(path_not_found());
  if (seg[0] == "api") {
    if (seg.size() == 1) return json_response(200, core_api_versions(m_server_address));
    return handle_api(req, "", seg[1], std::vector<std::string>(seg.begin() + 2, seg.end()));
  }
  if (seg.size() == 1) return json_response(200, api_group_list(m_registry));
  if (seg.size() == 2) {
    auto g = api_group(m_registry, seg[1]);
    return g ? json_response(200, *g) : error_response(path_not_found());
  }
  return handle_api(req, seg[1], seg[2], std::vector<std::string>(seg.begin() + 3, seg.end()));
}

HttpResponse ApiHandler::handle_openapi(const HttpRequest& req, const std::vector<std::string>& seg) {
  if (seg.size() == 2 && seg[1] == "v2") return handle_openapi_v2(req);
  if (seg.size() == 2 && seg[1] == "v3") return json_response(200, openapi_v3_root(m_registry));
  std::optional<json> doc;
  if (seg.size() == 4 && seg[1] == "v3" && seg[2] == "api")
    doc = openapi_v3_group_version(m_registry, "", seg[3]);
  if (seg.size() == 5 && seg[1] == "v3" && seg[2] == "apis") {
    doc = openapi_v3_group_version(m_registry, seg[3], seg[4]);
  }
  return doc ? json_response(200, *doc) : error_response(path_not_found());
}

HttpResponse ApiHandler::handle_openapi_v2(const HttpRequest& req) {
  std::shared_ptr<const OpenApiV2> doc;
  {
    std::lock_guard lock(m_openapi_v2_mutex);
    // The generation is read before the registry: a change while building leaves it stale, so the
    // next request rebuilds.
    const auto generation = m_registry.generation();
    if (!m_openapi_v2 || m_openapi_v2->generation != generation) {
      const auto document = openapi_v2_document(m_registry);
      m_openapi_v2 = std::make_shared<const OpenApiV2>(
          OpenApiV2{generation, document.dump(), openapi_v2_protobuf(document)});
    }
    doc = m_openapi_v2;
  }
  HttpResponse r;
  if (req.header("accept").find(k_openapi_v2_protobuf) != std::string::npos) {
    r.content_type = std::string(k_openapi_v2_protobuf) + ".v1.0+protobuf";
    r.body = doc->protobuf;
  } else {
    r.body = doc->json;
  }
  return r;
}

HttpResponse ApiHandler::handle_api(const HttpRequest& req, const std::string& group,
                                    const std::string& version, const std::vector<std::string>& rest) {
  if (rest.empty()) {
    auto list = api_resource_list(m_registry, group, version);
    return list ? json_response(200, *list) : error_response(path_not_found());
  }
  if (auto fault = m_faults.next_fault()) return error_response(*fault);
  Target t;
  std::size_t i = 0;
  if (rest.size() >= 3 && rest[0] == "namespaces") {
    auto r = m_registry.find(group, version, rest[2]);
    if (r && r->namespaced) {
      t.ns = rest[1];
      i = 2;
    }
  }
  t.resource = m_registry.find(group, version, rest[i]);
  if (!t.resource) return error_response(path_not_found());
  if (t.resource->namespaced && i == 0 && rest.size() > 1) return error_response(path_not_found());
  if (rest.size() > i + 1) t.name = rest[i + 1];
  if (rest.size() > i + 2) t.subresource = rest[i + 2];
  if (rest.size() > i + 3) return error_response(path_not_found());
  const auto& res = *t.resource;
  const auto& sub = t.subresource;
  const bool sub_ok =
      sub.empty() || (sub == "status" && res.status_subresource) ||
      (sub == "scale" && res.scale_subresource) ||
      ((sub == "log" || sub == "binding" || sub == "exec") && res.kind == "Pod" && res.group.empty()) ||
      (sub == "token" && res.kind == "ServiceAccount" && res.group.empty());
  if (!sub_ok) return error_response(path_not_found());

  if (sub == "exec" && (req.method == "GET" || req.method == "POST")) return do_exec(req, t);
  if (req.method == "GET") {
    if (t.name.empty()) return req.flag("watch") ? do_watch(req, t) : do_list(req, t);
    if (sub == "log") return do_log(req, t);
    return do_get(req, t);
  }
  if (req.method == "POST") {
    if (sub == "binding") return do_binding(req, t);
    if (sub == "token") return do_token_request(req, t);
    if (!t.name.empty()) return error_response(method_not_supported(res.group, res.plural, "create"));
    return do_create(req, t);
  }
  if (req.method == "PUT" && !t.name.empty()) return do_update(req, t);
  if (req.method == "PATCH" && !t.name.empty()) return do_patch(req, t);
  if (req.method == "DELETE") return do_delete(req, t);
  return error_response(method_not_supported(res.group, res.plural, req.method));
}

HttpResponse ApiHandler::render(const HttpRequest& req, const ResourceInfo& res, const json& obj,
                                int status) {
  if (!wants_table(req.header("accept"))) return json_response(status, obj);
  TableOptions opts;
  opts.now_epoch = static_cast<std::int64_t>(std::time(nullptr));
  opts.include_object = req.param("includeObject") == "Object";
  return json_response(
      status,
      to_table(res, {obj}, json{{"resourceVersion", model::k8s::meta_string(obj, "resourceVersion")}}, opts));
}

HttpResponse ApiHandler::do_get(const HttpRequest& req, const Target& t) {
  const auto& res = *t.resource;
  auto obj = t.subresource == "scale" ? m_ops.get_scale(res, t.ns, t.name) : m_ops.get(res, t.ns, t.name);
  if (!obj) return error_response(obj.error());
  if (t.subresource == "scale") return json_response(200, obj.value());
  return render(req, res, obj.value(), 200);
}

HttpResponse ApiHandler::do_list(const HttpRequest& req, const Target& t) {
  const auto& res = *t.resource;
  ListQuery q;
  auto labels = LabelSelector::parse(req.param("labelSelector"));
  if (!labels) return error_response(bad_request(labels.error().message));
  auto fields = FieldSelector::parse(req.param("fieldSelector"));
  if (!fields) return error_response(bad_request(fields.error().message));
  q.labels = std::move(*labels);
  q.fields = std::move(*fields);
  auto limit = int64_param(req, "limit");
  if (!limit) return error_response(limit.error());
  if (*limit) q.limit = **limit;
  q.continue_token = req.param("continue");
  auto list = m_ops.list(res, t.ns, q);
  if (!list) return error_response(list.error());
  if (!wants_table(req.header("accept"))) return json_response(200, list.value());
  TableOptions opts;
  opts.now_epoch = static_cast<std::int64_t>(std::time(nullptr));
  opts.include_object = req.param("includeObject") == "Object";
  const auto& items = list.value()["items"];
  return json_response(
      200, to_table(res, std::vector<json>(items.begin(), items.end()), list.value()["metadata"], opts));
}

HttpResponse ApiHandler::do_create(const HttpRequest& req, const Target& t) {
  const auto& res = *t.resource;
  if (res.kind == "SelfSubjectAccessReview") {
    // Everything is allowed for the token holder, so the (possibly protobuf, from
    // `kubectl auth can-i`) body need not be decoded; the answer is JSON either way.
    auto body = parse_body(req, nullptr);
    json review = body ? body.value()
                       : json{{"apiVersion", "authorization.k8s.io/v1"},
                              {"kind", "SelfSubjectAccessReview"},
                              {"spec", json::object()}};
    if (!review.is_object()) review = json::object();
    review["status"] = {{"allowed", true}, {"reason", "the local server's token holder may do everything"}};
    return json_response(201, review);
  }
  if (res.kind == "TokenReview") {
    auto body = parse_body(req, nullptr);
    if (!body) return error_response(body.error());
    return json_response(201, m_tokens.review(body.value(), std::chrono::floor<std::chrono::seconds>(
                                                                std::chrono::system_clock::now())));
  }
  auto body = parse_body(req, &res);
  if (!body) return error_response(body.error());
  auto r = m_ops.create(res, t.ns, std::move(body.value()), write_flags(req, ""));
  return write_response(*this, r, 201, [&](const json& o, int s) { return render(req, res, o, s); });
}

HttpResponse ApiHandler::do_update(const HttpRequest& req, const Target& t) {
  const auto& res = *t.resource;
  auto body = parse_body(req, t.subresource.empty() ? &res : nullptr);
  if (!body) return error_response(body.error());
  auto r = m_ops.update(res, t.ns, t.name, std::move(body.value()), write_flags(req, t.subresource));
  if (t.subresource == "scale" && r) return json_response(200, scale_of(res, r.value().object));
  return write_response(*this, r, 200, [&](const json& o, int s) { return render(req, res, o, s); });
}

HttpResponse ApiHandler::do_patch(const HttpRequest& req, const Target& t) {
  const auto& res = *t.resource;
  const auto content_type = req.header("content-type");
  const auto kind = patch_kind_of(content_type);
  if (!kind) return error_response(unsupported_media_type(content_type));
  auto r = m_ops.patch(res, t.ns, t.name, *kind, req.body, write_flags(req, t.subresource));
  if (t.subresource == "scale" && r) return json_response(200, scale_of(res, r.value().object));
  return write_response(*this, r, 200, [&](const json& o, int s) { return render(req, res, o, s); });
}

HttpResponse ApiHandler::do_delete(const HttpRequest& req, const Target& t) {
  const auto& res = *t.resource;
  auto options = delete_options_of(req);
  if (!options) return error_response(options.error());
  if (!t.name.empty()) {
    auto r = m_ops.remove(res, t.ns, t.name, options.value());
    if (!r) return error_response(r.error());
    return json_response(delete_status(r.value(), options.value()), r.value().object);
  }
  // deletecollection
  auto labels = LabelSelector::parse(req.param("labelSelector"));
  if (!labels) return error_response(bad_request(labels.error().message));
  ListQuery q;
  q.labels = std::move(*labels);
  auto list = m_ops.list(res, t.ns, q);
  if (!list) return error_response(list.error());
  for (const auto& item : list.value()["items"]) {
    (void)m_ops.remove(res, model::k8s::meta_string(item, "namespace"), model::k8s::meta_string(item, "name"),
                       options.value());
  }
  return json_response(200, success_status());
}

HttpResponse ApiHandler::do_binding(const HttpRequest& req, const Target& t) {
  auto body = parse_body(req, nullptr);
  if (!body) return error_response(body.error());
  const auto target = body.value().is_object() ? body.value().find("target") : body.value().end();
  const std::string node = target != body.value().end() ? util::string_at(*target, "name") : std::string();
  if (node.empty()) {
    return error_response(
        invalid("", "Binding", t.name, {{"FieldValueRequired", "Required value", "target.name"}}));
  }
  const auto& res = *t.resource;
  auto r =
      m_store.mutate(res.storage_key(), t.ns, t.name, [&](const std::optional<json>& cur) -> Expected<json> {
        if (!cur) return not_found("", "pods", t.name);
        const std::string bound = util::string_at(util::member(*cur, "spec"), "nodeName");
        if (!bound.empty() && bound != node) {
          return conflict("", "pods/binding", t.name,
                          "pod " + t.name + " is already assigned to node \"" + bound + "\"");
        }
        json out = *cur;
        out["spec"]["nodeName"] = node;
        return out;
      });
  return r ? json_response(201, success_status()) : error_response(r.error());
}

HttpResponse ApiHandler::do_token_request(const HttpRequest& req, const Target& t) {
  auto body = parse_body(req, nullptr);
  if (!body) return error_response(body.error());
  const util::Time now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  auto answer = m_tokens.request(t.ns, t.name, body.value(), now);
  return answer ? json_response(201, answer.value()) : error_response(answer.error());
}

}  // namespace kpt::apiserver
