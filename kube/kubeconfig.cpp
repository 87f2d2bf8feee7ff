#include "kube/kubeconfig.hpp"

#include "util/base64.hpp"
#include "util/json_access.hpp"
#include "yaml/node_json.hpp"

#include <nlohmann/json.hpp>

#include <set>

namespace kpt::kube {

namespace {

using nlohmann::json;

/// Reads typed fields of one JSON object and remembers the first type error, with its path.
class FieldReader {
 public:
  FieldReader(const json& obj, std::string path, std::string* error)
      : m_obj(obj), m_path(std::move(path)), m_error(error) {}

  std::string str(const char* key) {
    const json* v = find(key);
    if (v == nullptr) return {};
    if (v->is_string()) return v->get<std::string>();
    fail(key, "a string");
    return {};
  }
  bool boolean(const char* key) {
    const json* v = find(key);
    if (v == nullptr) return false;
    if (v->is_boolean()) return v->get<bool>();
    fail(key, "a boolean");
    return false;
  }
  std::string data(const char* key) {
    const std::string text = str(key);
    if (text.empty()) return {};
    auto decoded = util::base64_decode(text);
    if (!decoded) {
      fail(key, "base64 data");
      return {};
    }
    return *decoded;
  }
  std::vector<std::string> strings(const char* key) {
    std::vector<std::string> out;
    const json* v = find(key);
    if (v == nullptr) return out;
    if (!v->is_array()) {
      fail(key, "a list of strings");
      return out;
    }
    for (const auto& e : *v) {
      if (!e.is_string()) {
        fail(key, "a list of strings");
        return {};
      }
      out.push_back(e.get<std::string>());
    }
    return out;
  }
  const json* object(const char* key) {
    const json* v = find(key);
    if (v == nullptr) return nullptr;
    if (v->is_object()) return v;
    fail(key, "a mapping");
    return nullptr;
  }
  const json* list(const char* key) {
    const json* v = find(key);
    if (v == nullptr) return nullptr;
    if (v->is_array()) return v;
    fail(key, "a list");
    return nullptr;
  }
  [[nodiscard]] const std::string& path() const { return m_path; }

 private:
  const json* find(const char* key) const {
    if (!m_obj.is_object()) return nullptr;
    // Through the std::map: nlohmann's iterator here trips GCC 12's -Wnull-dereference.
    const auto& members = m_obj.get_ref<const json::object_t&>();
    const auto it = members.find(key);
    if (it == members.end() || it->second.is_null()) return nullptr;
    return &it->second;
  }
  void fail(const char* key, const char* expected) {
    if (m_error->empty()) *m_error = m_path + "." + key + ": expected " + expected;
  }

  const json& m_obj;
  std::string m_path;
  std::string* m_error;
};

ExecConfig parse_exec(FieldReader& r, const json& exec, const std::string& dir, std::string* error) {
  FieldReader e(exec, r.path() + ".exec", error);
  ExecConfig out;
  out.command = e.str("command");
  if (out.command.find('/') != std::string::npos) out.command = resolve_path(dir, out.command);
  out.args = e.strings("args");
  if (const json* env = e.list("env")) {
    for (const auto& item : *env) {
      FieldReader ev(item, e.path() + ".env", error);
      out.env.push_back({ev.str("name"), ev.str("value")});
    }
  }
  out.api_version = e.str("apiVersion");
  out.install_hint = e.str("installHint");
  out.provide_cluster_info = e.boolean("provideClusterInfo");
  out.interactive_mode = e.str("interactiveMode");
  return out;
}

KubeconfigCluster parse_cluster(FieldReader& r, const std::string& dir, const std::string& origin) {
  KubeconfigCluster c;
  c.origin = origin;
  c.server = r.str("server");
  c.certificate_authority = resolve_path(dir, r.str("certificate-authority"));
  c.certificate_authority_data = r.data("certificate-authority-data");
  c.insecure_skip_tls_verify = r.boolean("insecure-skip-tls-verify");
  c.tls_server_name = r.str("tls-server-name");
  c.proxy_url = r.str("proxy-url");
  c.disable_compression = r.boolean("disable-compression");
  if (const json* exts = r.list("extensions")) {
    for (const auto& ext : *exts) {
      if (ext.is_object() && util::string_at(ext, "name") == "client.authentication.k8s.io/exec" &&
          ext.contains("extension"))
        c.exec_extension_json = ext["extension"].dump();
    }
  }
  return c;
}

KubeconfigUser parse_user(FieldReader& r, const std::string& dir, const std::string& origin,
                          std::string* error) {
  KubeconfigUser u;
  u.origin = origin;
  u.token = r.str("token");
  u.token_file = resolve_path(dir, r.str("tokenFile"));
  u.client_certificate = resolve_path(dir, r.str("client-certificate"));
  u.client_certificate_data = r.data("client-certificate-data");
  u.client_key = resolve_path(dir, r.str("client-key"));
  u.client_key_data = r.data("client-key-data");
  u.username = r.str("username");
  u.password = r.str("password");
  u.as = r.str("as");
  u.as_uid = r.str("as-uid");
  u.as_groups = r.strings("as-groups");
  if (const json* extra = r.object("as-user-extra")) {
    for (auto it = extra->begin(); it != extra->end(); ++it) {
      FieldReader er(*extra, r.path() + ".as-user-extra", error);
      u.as_user_extra[it.key()] = er.strings(it.key().c_str());
    }
  }
  if (const json* exec = r.object("exec")) u.exec = parse_exec(r, *exec, dir, error);
  if (const json* ap = r.object("auth-provider")) {
    const std::string name = util::string_at(*ap, "name");
    u.auth_provider = name.empty() ? "unnamed" : name;
  }
  return u;
}

/// Calls `fn(name, body_reader)` for each `{name, <body_key>: {...}}` entry of list `key`.
template <class Fn>
void for_each_named(FieldReader& top, const char* key, const char* body_key, std::string* error, Fn&& fn) {
  const json* list = top.list(key);
  if (list == nullptr) return;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const json& item = (*list)[i];
    const std::string path = std::string(key) + "[" + std::to_string(i) + "]";
    FieldReader ir(item, path, error);
    const std::string name = ir.str("name");
    static const json k_empty = json::object();
    const json* body = ir.object(body_key);
    FieldReader br(body != nullptr ? *body : k_empty, path + "." + body_key, error);
    fn(name, br);
  }
}

}  // namespace

Expected<Kubeconfig> parse_kubeconfig(const std::string& path, const std::string& text) {
  const std::string prefix = "error loading config file \"" + path + "\"";
  auto doc = yaml::yaml_to_json(path, text);
  if (!doc) return make_error(ErrorCode::config, prefix + ": " + doc.error().message);
  Kubeconfig out;
  out.files.push_back(path);
  if (doc->is_null()) return out;
  if (!doc->is_object()) return make_error(ErrorCode::config, prefix + ": expected a mapping at the top");
  const std::string dir = dir_of(path);
  std::string error;
  FieldReader top(*doc, "", &error);
  out.current_context = top.str("current-context");
  // Within one file a repeated name: the last entry wins (Go map decoding), so assign.
  for_each_named(top, "clusters", "cluster", &error, [&](const std::string& name, FieldReader& r) {
    out.clusters[name] = parse_cluster(r, dir, path);
  });
  for_each_named(top, "users", "user", &error, [&](const std::string& name, FieldReader& r) {
    out.users[name] = parse_user(r, dir, path, &error);
  });
  for_each_named(top, "contexts", "context", &error, [&](const std::string& name, FieldReader& r) {
    out.contexts[name] = KubeconfigContext{r.str("cluster"), r.str("user"), r.str("namespace"), path};
  });
  if (!error.empty()) {
    if (error.front() == '.') error.erase(0, 1);
    return make_error(ErrorCode::config, prefix + ": " + error);
  }
  return out;
}

void merge_kubeconfig(Kubeconfig& merged, const Kubeconfig& later) {
  if (merged.current_context.empty()) merged.current_context = later.current_context;
  merged.clusters.insert(later.clusters.begin(), later.clusters.end());  // insert keeps existing keys
  merged.users.insert(later.users.begin(), later.users.end());
  merged.contexts.insert(later.contexts.begin(), later.contexts.end());
  merged.files.insert(merged.files.end(), later.files.begin(), later.files.end());
}

Expected<Kubeconfig> load_kubeconfig(const KubeconfigSources& sources, const FileSystem& fs) {
  auto absolute = [&](const std::string& p) {
    return p.empty() || p.front() == '/' ? p : resolve_path(sources.cwd, p);
  };
  Kubeconfig merged;
  auto load_one = [&](const std::string& given, bool required) -> Expected<void> {
    const std::string path = absolute(given);
    auto text = fs.read(path);
    if (!text) {
      if (text.error().code == ErrorCode::not_found && !required) return {};
      if (text.error().code == ErrorCode::not_found)
        return make_error(ErrorCode::config, "stat " + given + ": no such file or directory");
      return make_error(ErrorCode::config,
                        "error loading config file \"" + given + "\": " + text.error().message);
    }
    auto parsed = parse_kubeconfig(path, *text);
    if (!parsed) return parsed.error();
    merge_kubeconfig(merged, *parsed);
    return {};
  };

  if (!sources.explicit_path.empty()) {
    if (auto r = load_one(sources.explicit_path, true); !r) return r.error();
    return merged;
  }
  if (sources.kubeconfig_env && !sources.kubeconfig_env->empty()) {
    std::set<std::string> seen;
    std::string entry;
    std::vector<std::string> entries;
    for (char ch : *sources.kubeconfig_env + ":") {
      if (ch != ':') {
        entry += ch;
        continue;
      }
      if (!entry.empty() && seen.insert(absolute(entry)).second) entries.push_back(entry);
      entry.clear();
    }
    for (const auto& e : entries)
      if (auto r = load_one(e, false); !r) return r.error();
    return merged;
  }
  if (!sources.home.empty()) {
    if (auto r = load_one(sources.home + "/.kube/config", false); !r) return r.error();
  }
  return merged;
}

}  // namespace kpt::kube
