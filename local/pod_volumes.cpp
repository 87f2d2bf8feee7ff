#include "local/pod_volumes.hpp"

#include "local/cluster_paths.hpp"
#include "local/env_sources.hpp"
#include "util/base64.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <filesystem>

namespace kpt::local {

namespace {

using nlohmann::json;

const kube::ResourceRef k_secrets{"", "v1", "secrets", "Secret", true};

// Item paths are relative and stay inside the volume, as the API server validates them.
bool safe_path(const std::string& path) {
  if (path.empty() || path.front() == '/') return false;
  for (std::size_t start = 0; start <= path.size();) {
    const auto slash = std::min(path.find('/', start), path.size());
    if (path.compare(start, slash - start, "..") == 0 && slash - start == 2) return false;
    start = slash + 1;
  }
  return true;
}

void add_key_files(std::vector<ProjectedFile>& out, const std::string& volume, ProjectedFile::Source source,
                   const json& from) {
  ProjectedFile base;
  base.volume = volume;
  base.source = source;
  base.object = util::string_at(from, "name");
  base.optional = from.value("optional", false);
  const json items = from.value("items", json::array());
  if (!items.is_array() || items.empty()) {
    out.push_back(base);  // every key, each as a file of its name
    return;
  }
  for (const auto& item : items) {
    ProjectedFile f = base;
    f.key = util::string_at(item, "key");
    f.path = util::string_at(item, "path");
    if (!f.key.empty() && safe_path(f.path)) out.push_back(f);
  }
}

std::string join(const std::string& dir, const std::string& rest) {
  return rest.empty() ? dir : dir + "/" + rest;
}

Expected<void> write_file(const std::string& root, const ProjectedFile& f, const std::string& path,
                          const std::string& content) {
  const std::filesystem::path target = std::filesystem::path(root) / f.volume / path;
  std::error_code ec;
  std::filesystem::create_directories(target.parent_path(), ec);
  for (auto dir = target.parent_path(); !ec && dir.string().size() > root.size(); dir = dir.parent_path())
    std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);
  if (ec)
    return make_error(ErrorCode::io, "creating '" + target.parent_path().string() + "': " + ec.message());
  return write_private(target.string(), content, 0600);
}

// The data of a ConfigMap (as is) or Secret (decoded), or an error worded as the kubelet's.
Expected<std::optional<json>> source_data(kube::ApiClient& api, const std::string& ns,
                                          const ProjectedFile& f) {
  const bool secret = f.source == ProjectedFile::Source::secret;
  auto object = api.get(secret ? k_secrets : kube::resources::configmaps(), ns, f.object);
  if (!object) {
    if (!kube::is_not_found(object.error())) return object.error();
    if (f.optional) return std::optional<json>{};
    return make_error(ErrorCode::not_found,
                      std::string(secret ? "secret" : "configmap") + " \"" + f.object + "\" not found");
  }
  json data = object->value("data", json::object());
  if (!data.is_object()) data = json::object();
  if (secret) {
    for (auto& [key, value] : data.items()) {
      const auto decoded = value.is_string() ? util::base64_decode(value.get<std::string>()) : std::nullopt;
      value = decoded.value_or("");
    }
  }
  return std::optional<json>{data};
}

}  // namespace

std::vector<ProjectedFile> projected_files(const json& pod) {
  std::vector<ProjectedFile> out;
  for (const auto& volume : pod.value("/spec/volumes"_json_pointer, json::array())) {
    if (!volume.is_object() || !volume.contains("projected")) continue;
    const std::string name = util::string_at(volume, "name");
    for (const auto& source : volume["projected"].value("sources", json::array())) {
      if (!source.is_object()) continue;
      if (source.contains("serviceAccountToken") && source["serviceAccountToken"].is_object()) {
        const json& t = source["serviceAccountToken"];
        ProjectedFile f;
        f.volume = name;
        f.path = util::string_at(t, "path");
        f.audience = util::string_at(t, "audience");
        f.expiration_seconds = t.value("expirationSeconds", std::int64_t{3600});
        if (safe_path(f.path)) out.push_back(f);
      }
      if (source.contains("configMap") && source["configMap"].is_object())
        add_key_files(out, name, ProjectedFile::Source::config_map, source["configMap"]);
      if (source.contains("secret") && source["secret"].is_object())
        add_key_files(out, name, ProjectedFile::Source::secret, source["secret"]);
    }
  }
  return out;
}

void remap_mounted_paths(std::vector<ContainerLaunch>& launches, const json& pod,
                         const std::vector<std::string>& volumes, const std::string& volume_root) {
  const json spec = pod.value("spec", json::object());
  for (auto& launch : launches) {
    const char* list = launch.init ? "initContainers" : "containers";
    json mounts = json::array();
    for (const auto& c : spec.value(list, json::array())) {
      if (c.is_object() && util::string_at(c, "name") == launch.name)
        mounts = c.value("volumeMounts", json::array());
    }
    for (const auto& mount : mounts) {
      const std::string volume = util::string_at(mount, "name");
      std::string at = util::string_at(mount, "mountPath");
      if (std::find(volumes.begin(), volumes.end(), volume) == volumes.end() || at.empty()) continue;
      while (at.size() > 1 && at.back() == '/') at.pop_back();
      const std::string local = join(volume_root + "/" + volume, util::string_at(mount, "subPath"));
      for (auto& var : launch.env) {
        const auto eq = var.find('=');
        if (eq == std::string::npos) continue;
        const std::string value = var.substr(eq + 1);
        if (value == at || value.rfind(at + "/", 0) == 0)
          var = var.substr(0, eq + 1) + local + value.substr(at.size());
      }
    }
  }
}

Expected<std::optional<std::chrono::seconds>> write_projected_files(kube::ApiClient& api, const json& pod,
                                                                    const std::vector<ProjectedFile>& files,
                                                                    const std::string& volume_root) {
  const json meta = pod.value("metadata", json::object());
  const std::string ns = meta.value("namespace", "default");
  std::string account = pod.value("/spec/serviceAccountName"_json_pointer, std::string{});
  if (account.empty()) account = "default";
  std::optional<std::chrono::seconds> refresh;
  for (const auto& f : files) {
    if (f.source == ProjectedFile::Source::token) {
      const json request = {{"apiVersion", "authentication.k8s.io/v1"},
                            {"kind", "TokenRequest"},
                            {"spec",
                             {{"audiences", json::array({f.audience})},
                              {"expirationSeconds", f.expiration_seconds},
                              {"boundObjectRef",
                               {{"apiVersion", "v1"},
                                {"kind", "Pod"},
                                {"name", util::string_at(meta, "name")},
                                {"uid", util::string_at(meta, "uid")}}}}}};
      auto answer =
          api.post_raw("/api/v1/namespaces/" + ns + "/serviceaccounts/" + account + "/token", request);
      if (!answer)
        return answer.error().context("requesting a token for service account " + util::quote(account));
      const std::string token = answer->value("/status/token"_json_pointer, std::string{});
      if (auto w = write_file(volume_root, f, f.path, token); !w) return w.error();
      const auto again = std::chrono::seconds(f.expiration_seconds * 8 / 10);
      refresh = refresh ? std::min(*refresh, again) : again;
      continue;
    }
    auto data = source_data(api, ns, f);
    if (!data) return data.error();
    if (!*data) continue;
    if (f.key.empty()) {
      for (const auto& [key, value] : (*data)->items()) {
        if (!value.is_string() || !safe_path(key)) continue;
        if (auto w = write_file(volume_root, f, key, value.get<std::string>()); !w) return w.error();
      }
      continue;
    }
    const auto it = (*data)->find(f.key);
    if (it == (*data)->end() || !it->is_string()) {
      if (f.optional) continue;
      return make_error(ErrorCode::not_found, "configmap references non-existent config key: " + f.key);
    }
    if (auto w = write_file(volume_root, f, f.path, it->get<std::string>()); !w) return w.error();
  }
  return refresh;
}

}  // namespace kpt::local
