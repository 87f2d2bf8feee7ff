#pragma once

#include "kube/api_client.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kpt::plugin::testing {

/// A scripted ApiClient for doctor and live-validate tests: answers from maps, records every call.
class ScriptedClient final : public kube::ApiClient {
 public:
  std::map<std::string, Expected<nlohmann::json>> objects;  ///< "resource/name" → object or error
  std::map<std::string, Expected<kube::ListResult>> lists;  ///< "resource" → items or error
  std::map<std::string, Expected<std::string>> raw;         ///< path → body or error
  std::optional<Error> post_error;                          ///< SelfSubjectAccessReview answer
  bool allowed = true;
  std::optional<Error> write_error;  ///< create / patch answer
  std::vector<std::string> warnings;
  std::vector<std::string> write_warnings;  ///< sent with the next create / patch
  std::vector<std::string> calls;           ///< "get crds/x", "patch pytorchjobs ns/n dryRun Strict"
  kube::WriteOptions last_write;

  static Error error(int status, const std::string& message, ErrorCode code = ErrorCode::api) {
    Error e = make_error(code, message);
    e.http_status = status;
    return e;
  }

  Expected<nlohmann::json> get(const kube::ResourceRef& ref, const std::string&,
                               const std::string& name) override {
    calls.push_back("get " + ref.resource + "/" + name);
    const auto it = objects.find(ref.resource + "/" + name);
    if (it == objects.end()) return error(404, ref.resource + " '" + name + "' not found");
    return it->second;
  }
  /// lists["deployments@ns"] answers for one namespace, lists["deployments"] for the rest.
  Expected<kube::ListResult> list(const kube::ResourceRef& ref, const std::string& ns,
                                  const kube::ListOptions&) override {
    const std::string key = ns.empty() ? ref.resource : ref.resource + "@" + ns;
    calls.push_back("list " + key);
    auto it = lists.find(key);
    if (it == lists.end()) it = lists.find(ref.resource);
    if (it == lists.end()) return kube::ListResult{};
    return it->second;
  }
  Expected<void> watch(const kube::ResourceRef&, const std::string&, const kube::ListOptions&,
                       const std::function<bool(const kube::WatchEvent&)>&,
                       const std::atomic<bool>*) override {
    return error(405, "no watch");
  }
  Expected<nlohmann::json> create(const kube::ResourceRef& ref, const std::string& ns,
                                  const nlohmann::json& obj, const kube::WriteOptions& opts) override {
    return write(
        "create " + ref.resource + " " + ns + "/" + obj.value("/metadata/generateName"_json_pointer, ""), obj,
        opts);
  }
  Expected<nlohmann::json> update(const kube::ResourceRef&, const std::string&, const nlohmann::json&,
                                  const kube::WriteOptions&) override {
    return error(405, "no update");
  }
  Expected<nlohmann::json> update_status(const kube::ResourceRef&, const std::string&,
                                         const nlohmann::json&) override {
    return error(405, "no update");
  }
  Expected<nlohmann::json> patch(const kube::ResourceRef& ref, const std::string& ns, const std::string& name,
                                 kube::PatchType type, const std::string& body,
                                 const kube::WriteOptions& opts) override {
    return write(std::string(type == kube::PatchType::apply ? "apply " : "patch ") + ref.resource + " " + ns +
                     "/" + name,
                 nlohmann::json::parse(body), opts);
  }
  Expected<void> remove(const kube::ResourceRef&, const std::string&, const std::string&,
                        const kube::DeleteOptions&) override {
    return error(405, "no delete");
  }
  Expected<std::string> get_raw(const std::string& path) override {
    calls.push_back("raw " + path);
    const auto it = raw.find(path);
    if (it == raw.end()) return error(404, "the server could not find the requested resource");
    return it->second;
  }
  Expected<void> stream_raw(const std::string&, const std::function<bool(std::string_view)>&,
                            const std::atomic<bool>*) override {
    return error(405, "no stream");
  }
  Expected<nlohmann::json> post_raw(const std::string& path, const nlohmann::json& body) override {
    calls.push_back("post " + path + " " + body.value("/spec/resourceAttributes/resource"_json_pointer, ""));
    if (post_error) return *post_error;
    nlohmann::json out = body;
    out["status"] = {{"allowed", allowed}, {"reason", allowed ? "rbac says yes" : ""}};
    return out;
  }
  std::vector<std::string> take_warnings() override { return std::exchange(warnings, {}); }

 private:
  Expected<nlohmann::json> write(const std::string& call, const nlohmann::json& obj,
                                 const kube::WriteOptions& opts) {
    calls.push_back(call + (opts.dry_run ? " dryRun" : "") + " " + opts.field_validation);
    last_write = opts;
    warnings = write_warnings;
    if (write_error) return *write_error;
    return obj;
  }
};

}  // namespace kpt::plugin::testing
