#include "apiserver/resource_ops.hpp"

#include "apiserver/builtin_kinds.hpp"
#include "apiserver/go_decode_error.hpp"
#include "model/k8s/object_meta.hpp"
#include "util/json_access.hpp"
#include "util/time.hpp"

#include <algorithm>
#include <functional>
#include <random>

namespace kpt::apiserver {

namespace {

using json = nlohmann::json;
using model::k8s::meta_string;

std::string random_suffix() {
  static const char k_alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  thread_local std::mt19937 rng{std::random_device{}()};
  std::string out;
  for (int i = 0; i < 5; ++i) out += k_alphabet[rng() % (sizeof k_alphabet - 1)];
  return out;
}

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 253) return false;
  const auto ok = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
  };
  return std::all_of(name.begin(), name.end(), ok) && name.front() != '-' && name.back() != '-' &&
         name.front() != '.' && name.back() != '.';
}

json without_meta_and_status(json obj) {
  obj.erase("metadata");
  obj.erase("status");
  return obj;
}

json::json_pointer pointer_of(const std::string& json_path) {
  std::string p = json_path;
  std::replace(p.begin(), p.end(), '.', '/');
  return json::json_pointer(p);
}

void crd_defaults(json& crd) {
  const auto& spec = crd.value("spec", json::object());
  std::string stored;
  for (const auto& v : spec.value("versions", json::array())) {
    if (v.value("storage", false)) stored = util::string_at(v, "name");
  }
  const std::string now = util::now_rfc3339();
  crd["status"] = {{"acceptedNames", spec.value("names", json::object())},
                   {"storedVersions", stored.empty() ? json::array() : json::array({stored})},
                   {"conditions",
                    {{{"type", "NamesAccepted"},
                      {"status", "True"},
                      {"reason", "NoConflicts"},
                      {"message", "no conflicts found"},
                      {"lastTransitionTime", now}},
                     {{"type", "Established"},
                      {"status", "True"},
                      {"reason", "InitialNamesAccepted"},
                      {"message", "the initial names have been accepted"},
                      {"lastTransitionTime", now}}}}};
}

/// ClusterIP type and a stable cluster IP from the uid (headless Services keep "None").
void default_service(json& svc) {
  if (!svc.contains("spec") || !svc["spec"].is_object()) svc["spec"] = json::object();
  auto& spec = svc["spec"];
  if (!spec.contains("type")) spec["type"] = "ClusterIP";
  if (!spec.contains("clusterIP") && spec["type"] != "ExternalName") {
    const auto h = std::hash<std::string>{}(model::k8s::meta_string(svc, "uid"));
    spec["clusterIP"] = "10.96." + std::to_string((h >> 8) % 256) + "." + std::to_string(1 + h % 254);
  }
  if (spec.contains("clusterIP") && !spec.contains("clusterIPs"))
    spec["clusterIPs"] = json::array({spec["clusterIP"]});
}

std::vector<StatusCause> crd_problems(const json& crd) {
  std::vector<StatusCause> causes;
  const auto spec = crd.value("spec", json::object());
  const auto names = spec.value("names", json::object());
  if (util::string_at(spec, "group").empty())
    causes.push_back({"FieldValueRequired", "Required value", "spec.group"});
  if (util::string_at(names, "plural").empty()) {
    causes.push_back({"FieldValueRequired", "Required value", "spec.names.plural"});
  }
  if (util::string_at(names, "kind").empty())
    causes.push_back({"FieldValueRequired", "Required value", "spec.names.kind"});
  if (spec.value("versions", json::array()).empty()) {
    causes.push_back({"FieldValueRequired", "Required value", "spec.versions"});
  }
  const std::string want = util::string_at(names, "plural") + "." + util::string_at(spec, "group");
  if (causes.empty() && meta_string(crd, "name") != want) {
    causes.push_back(
        {"FieldValueInvalid",
         "Invalid value: \"" + meta_string(crd, "name") + "\": must be spec.names.plural+\".\"+spec.group",
         "metadata.name"});
  }
  return causes;
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

/// A built-in object the real server's decoder refuses: 400 for a create or update (the body does
/// not decode), 422 on the field `patch` for a patch's result (k8s.io/apiserver handlers/patch.go).
Error decode_refusal(const ResourceInfo& res, const json& obj, const std::string& why,
                     const WriteFlags& flags) {
  if (flags.patch) {
    return invalid("", "", "",
                   {{"FieldValueInvalid", "Invalid value: " + go_quote(obj.dump()) + ": " + why, "patch"}});
  }
  return bad_request(res.kind + " in version \"" + res.version + "\" cannot be handled as a " + res.kind +
                     ": " + why);
}

// A write that names a resourceVersion other than the stored one lost a race: optimistic
// concurrency, as every update and patch of the real API server checks it.
std::optional<Error> version_conflict(const ResourceInfo& res, const std::string& name, const json& written,
                                      const json& stored) {
  const std::string rv = meta_string(written, "resourceVersion");
  if (rv.empty() || rv == meta_string(stored, "resourceVersion")) return std::nullopt;
  return conflict(
      res.group, res.plural, name,
      "the object has been modified; please apply your changes to the latest version and try again");
}

}  // namespace

json scale_of(const ResourceInfo& res, const json& object) {
  json meta = json::object();
  for (const char* k : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
    if (object["metadata"].contains(k)) meta[k] = object["metadata"][k];
  }
  const auto read = [&](const std::string& path) {
    if (path.empty()) return json(0);
    const auto ptr = pointer_of(path);
    return object.contains(ptr) ? object[ptr] : json(0);
  };
  return {{"kind", "Scale"},
          {"apiVersion", "autoscaling/v1"},
          {"metadata", meta},
          {"spec", {{"replicas", read(res.scale_spec_path)}}},
          {"status", {{"replicas", read(res.scale_status_path)}}}};
}

std::string encode_continue(const std::string& last_key) {
  static const char k_hex[] = "0123456789abcdef";
  std::string out = "kpt1.";
  for (const unsigned char c : last_key) {
    out += k_hex[c >> 4];
    out += k_hex[c & 15];
  }
  return out;
}

std::string decode_continue(const std::string& token) {
  if (token.rfind("kpt1.", 0) != 0) return {};
  std::string out;
  for (std::size_t i = 5; i + 1 < token.size(); i += 2) {
    out += static_cast<char>(std::stoi(token.substr(i, 2), nullptr, 16));
  }
  return out;
}

Expected<json> ResourceOps::get(const ResourceInfo& res, const std::string& ns,
                                const std::string& name) const {
  auto obj = m_store.get(res.storage_key(), ns, name);
  if (!obj) return not_found(res.group, res.plural, name);
  (*obj)["apiVersion"] = res.group_version();
  return *obj;
}

Expected<json> ResourceOps::list(const ResourceInfo& res, const std::string& ns, const ListQuery& q) const {
  std::string after;
  if (!q.continue_token.empty()) {
    after = decode_continue(q.continue_token);
    if (after.empty())
      return bad_request("continue key is not valid: incorrect encoded start resourceVersion");
  }
  std::uint64_t rv = 0;
  auto all = m_store.list(res.storage_key(), ns, after, &rv);
  json items = json::array();
  std::string next;
  for (auto& obj : all) {
    if (!q.labels.matches(obj["metadata"].value("labels", json::object())) || !q.fields.matches(obj))
      continue;
    if (q.limit > 0 && static_cast<std::int64_t>(items.size()) == q.limit) {
      const auto& last = items.back()["metadata"];
      next = encode_continue(util::string_at(last, "namespace") + "/" + util::string_at(last, "name"));
      break;
    }
    obj["apiVersion"] = res.group_version();
    items.push_back(std::move(obj));
  }
  json meta = {{"resourceVersion", std::to_string(rv)}};
  if (!next.empty()) meta["continue"] = next;
  return json{
      {"kind", res.list_kind}, {"apiVersion", res.group_version()}, {"metadata", meta}, {"items", items}};
}

std::optional<Error> ResourceOps::decode_builtin(const ResourceInfo& res, json& obj,
                                                 std::vector<std::string>& warnings, const WriteFlags& flags,
                                                 std::vector<StatusCause>& causes) const {
  if (res.custom || !res.validator) return std::nullopt;
  auto outcome = res.validator->validate(obj);
  if (!outcome.decode_error.empty()) return decode_refusal(res, obj, outcome.decode_error, flags);
  if (!outcome.strict_errors.empty() && flags.field_validation == "Strict") {
    return decode_refusal(res, obj, "strict decoding error: " + joined(outcome.strict_errors), flags);
  }
  if (flags.field_validation != "Ignore") {
    warnings.insert(warnings.end(), outcome.strict_errors.begin(), outcome.strict_errors.end());
  }
  for (const auto& pointer : outcome.unknown_pointers) obj[pointer.parent_pointer()].erase(pointer.back());
  causes = std::move(outcome.errors);
  return std::nullopt;
}

std::optional<Error> ResourceOps::validate(const ResourceInfo& res, const json& obj,
                                           std::vector<std::string>& warnings, const WriteFlags& flags,
                                           std::vector<StatusCause> causes, const json* old_object) const {
  const std::string name = meta_string(obj, "name");
  if (res.kind == "CustomResourceDefinition" && res.group == "apiextensions.k8s.io") {
    const auto crd_causes = crd_problems(obj);
    if (!crd_causes.empty()) return invalid(res.group, res.kind, name, crd_causes);
  }
  if (!res.custom) {
    if (!res.validator) return std::nullopt;
    auto stored = res.validator->validate_stored(obj);
    stored.insert(stored.end(), causes.begin(), causes.end());
    if (old_object != nullptr) {
      auto changes = res.validator->validate_update(*old_object, obj);
      stored.insert(stored.end(), changes.begin(), changes.end());
    }
    if (!stored.empty()) return invalid(res.group, res.kind, name, stored);
    return std::nullopt;
  }
  if (!res.validator) return std::nullopt;
  auto outcome = res.validator->validate(obj);
  if (flags.field_validation == "Strict") {
    outcome.errors.insert(outcome.errors.end(), outcome.unknown_fields.begin(), outcome.unknown_fields.end());
  } else if (flags.field_validation != "Ignore") {
    for (const auto& u : outcome.unknown_fields) warnings.push_back(u.message);
  }
  if (!outcome.errors.empty()) return invalid(res.group, res.kind, name, outcome.errors);
  return std::nullopt;
}

Expected<json> ResourceOps::prepare_create(const ResourceInfo& res, const std::string& ns, json body,
                                           std::vector<std::string>& warnings,
                                           const WriteFlags& flags) const {
  if (!body.is_object()) return bad_request("the body of the request must be a JSON or YAML object");
  body["apiVersion"] = res.group_version();
  body["kind"] = res.kind;
  std::vector<StatusCause> schema_causes;
  if (auto err = decode_builtin(res, body, warnings, flags, schema_causes)) return *err;
  if (!body.contains("metadata") || !body["metadata"].is_object()) body["metadata"] = json::object();
  auto& meta = body["metadata"];
  if (res.namespaced) {
    if (meta.contains("namespace") && meta["namespace"].is_string() && meta["namespace"] != ns &&
        !meta["namespace"].get<std::string>().empty()) {
      return bad_request(
          "the namespace of the provided object does not match the namespace sent on the request");
    }
    meta["namespace"] = ns;
  } else {
    meta.erase("namespace");
  }
  std::string name = meta_string(body, "name");
  if (name.empty() && !meta_string(body, "generateName").empty()) {
    name = meta_string(body, "generateName") + random_suffix();
    meta["name"] = name;
  }
  if (name.empty()) {
    return invalid(
        res.group, res.kind, "",
        {{"FieldValueRequired", "Required value: name or generateName is required", "metadata.name"}});
  }
  if (res.custom && !valid_name(name)) {  // built-in kinds: each kind's own rule, in validate()
    return invalid(
        res.group, res.kind, name,
        {{"FieldValueInvalid",
          "Invalid value: \"" + name +
              "\": a lowercase RFC 1123 subdomain must consist of lower case "
              "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
          "metadata.name"}});
  }
  meta["uid"] = new_uid();
  meta["creationTimestamp"] = util::now_rfc3339();
  meta["generation"] = 1;
  meta.erase("resourceVersion");
  meta.erase("deletionTimestamp");
  meta.erase("managedFields");
  if (res.custom && res.status_subresource) body.erase("status");
  if (res.kind == "Pod" && res.group.empty() && !body.contains("status"))
    body["status"] = {{"phase", "Pending"}};
  if (res.kind == "Namespace" && res.group.empty()) body["status"] = {{"phase", "Active"}};
  if (res.kind == "Service" && res.group.empty()) default_service(body);
  if (res.kind == "CustomResourceDefinition") crd_defaults(body);
  if (auto err = prepare_builtin(res, body)) return *err;
  if (res.custom && res.validator) res.validator->default_object(body);
  if (auto err = validate(res, body, warnings, flags, std::move(schema_causes))) return *err;
  return body;
}

Expected<json> ResourceOps::merge_update(const ResourceInfo& res, const json& current, json body,
                                         std::vector<std::string>& warnings, const WriteFlags& flags) const {
  if (!body.is_object()) return bad_request("the body of the request must be a JSON or YAML object");
  json out;
  std::vector<StatusCause> schema_causes;
  if (flags.subresource == "status") {
    out = current;
    if (body.contains("status")) {
      out["status"] = body["status"];
    } else {
      out.erase("status");
    }
    if (auto err = decode_builtin(res, out, warnings, flags, schema_causes)) return *err;
    // A status write is validated on what it may change (as ValidatePodStatusUpdate is): a spec
    // stored before it could be checked does not block the node's status updates.
    std::erase_if(schema_causes, [](const StatusCause& c) { return c.field.rfind("status", 0) != 0; });
    if (res.custom && res.validator) res.validator->default_object(out);
  } else {
    out = std::move(body);
    if (!out.contains("metadata") || !out["metadata"].is_object()) out["metadata"] = json::object();
    for (const char* keep :
         {"uid", "creationTimestamp", "namespace", "name", "deletionTimestamp", "generation"}) {
      if (current["metadata"].contains(keep)) {
        out["metadata"][keep] = current["metadata"][keep];
      } else {
        out["metadata"].erase(keep);
      }
    }
    if (res.status_subresource && res.kind != "CustomResourceDefinition") {
      if (current.contains("status")) {
        out["status"] = current["status"];
      } else {
        out.erase("status");
      }
    }
    if (res.kind == "CustomResourceDefinition") crd_defaults(out);
    out["apiVersion"] = res.group_version();
    out["kind"] = res.kind;
    if (auto err = decode_builtin(res, out, warnings, flags, schema_causes)) return *err;
    // Defaults first, so that a field the stored object has only by default is no change.
    if (res.custom && res.validator) res.validator->default_object(out);
    if (without_meta_and_status(out) != without_meta_and_status(current)) {
      out["metadata"]["generation"] = current["metadata"].value("generation", 1) + 1;
    }
  }
  out["apiVersion"] = res.group_version();
  out["kind"] = res.kind;
  if (flags.subresource != "status") {
    if (auto err = prepare_builtin(res, out)) return *err;
  }
  // A status write keeps the spec, and the node's writes must not trip over the spec rules.
  const json* old_object = flags.subresource == "status" ? nullptr : &current;
  if (auto err = validate(res, out, warnings, flags, std::move(schema_causes), old_object)) return *err;
  return out;
}

Expected<WriteResult> ResourceOps::finish_write(const ResourceInfo& res, const std::string& ns,
                                                const std::string& name, Expected<json> stored,
                                                std::vector<std::string> warnings, bool created,
                                                bool dry_run) {
  if (!stored) return stored.error();
  json obj = std::move(stored.value());
  if (!dry_run) {
    if (res.kind == "CustomResourceDefinition" && res.group == "apiextensions.k8s.io")
      m_registry.apply_crd(obj);
    const auto& meta = obj["metadata"];
    const bool finalizers_left = meta.contains("finalizers") && !meta["finalizers"].empty();
    if (meta.contains("deletionTimestamp") && !finalizers_left) {
      if (auto gone_obj = m_store.erase(res.storage_key(), ns, name)) collect_after_erase(res, *gone_obj);
    } else if (meta.contains("ownerReferences")) {
      collect_if_dangling(res, obj);
    }
  }
  return WriteResult{std::move(obj), std::move(warnings), created};
}

Expected<WriteResult> ResourceOps::create(const ResourceInfo& res, const std::string& ns, json body,
                                          const WriteFlags& flags) {
  if (res.namespaced && !m_store.get("/namespaces", "", ns)) return not_found("", "namespaces", ns);
  std::vector<std::string> warnings;
  auto prepared = prepare_create(res, ns, std::move(body), warnings, flags);
  if (!prepared) return prepared.error();
  const std::string name = meta_string(prepared.value(), "name");
  auto stored = m_store.mutate(
      res.storage_key(), ns, name,
      [&](const std::optional<json>& cur) -> Expected<json> {
        if (cur) return already_exists(res.group, res.plural, name);
        return prepared.value();
      },
      flags.dry_run);
  return finish_write(res, ns, name, std::move(stored), std::move(warnings), true, flags.dry_run);
}

Expected<WriteResult> ResourceOps::update(const ResourceInfo& res, const std::string& ns,
                                          const std::string& name, json body, const WriteFlags& flags) {
  if (!body.is_object()) return bad_request("the body of the request must be a JSON or YAML object");
  const std::string body_name = meta_string(body, "name");
  if (!body_name.empty() && body_name != name && flags.subresource != "scale") {
    return bad_request("the name of the object (" + body_name + ") does not match the name on the URL (" +
                       name + ")");
  }
  std::vector<std::string> warnings;
  auto stored = m_store.mutate(
      res.storage_key(), ns, name,
      [&](const std::optional<json>& cur) -> Expected<json> {
        if (!cur) return not_found(res.group, res.plural, name);
        if (auto stale = version_conflict(res, name, body, *cur)) return std::move(*stale);
        if (flags.subresource == "scale") {
          json out = *cur;
          if (body.contains("spec") && body["spec"].contains("replicas")) {
            out[pointer_of(res.scale_spec_path)] = body["spec"]["replicas"];
          }
          return merge_update(res, *cur, out, warnings,
                              WriteFlags{flags.dry_run, flags.field_validation, "", ""});
        }
        return merge_update(res, *cur, body, warnings, flags);
      },
      flags.dry_run);
  return finish_write(res, ns, name, std::move(stored), std::move(warnings), false, flags.dry_run);
}

Expected<WriteResult> ResourceOps::patch(const ResourceInfo& res, const std::string& ns,
                                         const std::string& name, PatchKind kind, const std::string& body,
                                         const WriteFlags& flags) {
  if (kind == PatchKind::strategic && res.custom)
    return unsupported_media_type("application/strategic-merge-patch+json");
  if (kind == PatchKind::apply && flags.field_manager.empty()) {
    return invalid("meta.k8s.io", "PatchOptions", "",
                   {{"FieldValueRequired", "Required value: is required for apply patch", "fieldManager"}});
  }
  auto parsed = parse_patch_body(kind, body);
  if (!parsed) return parsed.error();
  WriteFlags patch_flags = flags;
  patch_flags.patch = true;
  const bool may_create = kind == PatchKind::apply && flags.subresource.empty();
  if (may_create && res.namespaced && !m_store.get("/namespaces", "", ns))
    return not_found("", "namespaces", ns);
  std::vector<std::string> warnings;
  bool created = false;
  auto stored = m_store.mutate(
      res.storage_key(), ns, name,
      [&](const std::optional<json>& cur) -> Expected<json> {
        if (!cur) {
          if (!may_create) return not_found(res.group, res.plural, name);
          json obj = parsed.value();
          if (!obj.is_object()) return bad_request("the body of the request must be a JSON or YAML object");
          if (!obj.contains("metadata")) obj["metadata"] = json::object();
          // A metadata that is not an object is prepare_create's to refuse (a built-in's decode error).
          if (obj["metadata"].is_object()) obj["metadata"]["name"] = name;
          created = true;
          return prepare_create(res, ns, std::move(obj), warnings, patch_flags);
        }
        json base = *cur;
        if (flags.subresource == "scale") base = scale_of(res, *cur);
        auto patched =
            apply_patch(kind, base, parsed.value(), builtin_patch_strategies(res.group_version(), res.kind));
        if (!patched) return patched.error();
        if (auto stale = version_conflict(res, name, patched.value(), *cur)) return std::move(*stale);
        if (flags.subresource == "scale") {
          json out = *cur;
          out[pointer_of(res.scale_spec_path)] = patched.value()["spec"].value("replicas", 0);
          return merge_update(res, *cur, out, warnings,
                              WriteFlags{flags.dry_run, flags.field_validation, "", ""});
        }
        return merge_update(res, *cur, std::move(patched.value()), warnings, patch_flags);
      },
      flags.dry_run);
  return finish_write(res, ns, name, std::move(stored), std::move(warnings), created, flags.dry_run);
}

Expected<json> ResourceOps::get_scale(const ResourceInfo& res, const std::string& ns,
                                      const std::string& name) const {
  auto obj = get(res, ns, name);
  if (!obj) return obj;
  return scale_of(res, obj.value());
}

}  // namespace kpt::apiserver
