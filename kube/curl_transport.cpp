#include "kube/http_transport.hpp"

#include <curl/curl.h>

#include <cctype>
#include <mutex>
#include <vector>

namespace kpt::kube {

std::vector<std::string> HttpResponse::header(std::string_view name) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : headers) {
    if (k.size() != name.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < k.size() && same; ++i)
      same =
          std::tolower(static_cast<unsigned char>(k[i])) == std::tolower(static_cast<unsigned char>(name[i]));
    if (same) out.push_back(v);
  }
  return out;
}

namespace {

struct GlobalInit {
  GlobalInit() { curl_global_init(CURL_GLOBAL_DEFAULT); }
};

struct Transfer {
  CURL* easy = nullptr;
  HttpResponse* response = nullptr;
  const DataSink* sink = nullptr;
  const std::atomic<bool>* cancel = nullptr;
  bool stopped_by_sink = false;
};

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  std::string line(data, size * count);
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
  if (line.rfind("HTTP/", 0) == 0) {
    t->response->headers.clear();  // a new response (after 100 Continue or a redirect)
  } else if (auto colon = line.find(':'); colon != std::string::npos) {
    std::string value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.erase(0, 1);
    t->response->headers.emplace_back(line.substr(0, colon), value);
  }
  return size * count;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  if (t->cancel != nullptr && t->cancel->load()) return 0;
  long code = 0;
  curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &code);
  if (t->sink != nullptr && code >= 200 && code < 300) {
    if (!(*t->sink)(std::string_view(data, n))) {
      t->stopped_by_sink = true;
      return 0;
    }
    return n;
  }
  t->response->body.append(data, n);
  return n;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  return (t->cancel != nullptr && t->cancel->load()) ? 1 : 0;
}

// A stream the caller may cancel (watches, followed logs): curl_easy_perform notices a cancel only
// when its progress callback runs, about once a second on an idle stream, so a follower or an
// informer that stops would wait for it. A multi loop polling 50 ms at a time stops within that.
CURLcode perform_cancellable(CURL* easy, const std::atomic<bool>& cancel) {
  CURLM* multi = curl_multi_init();
  if (multi == nullptr) return curl_easy_perform(easy);
  curl_multi_add_handle(multi, easy);
  CURLcode result = CURLE_OK;
  bool done = false;
  while (!done) {
    if (cancel.load()) {
      result = CURLE_ABORTED_BY_CALLBACK;
      break;
    }
    int running = 0;
    if (curl_multi_perform(multi, &running) != CURLM_OK) {
      result = CURLE_RECV_ERROR;
      break;
    }
    int queued = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &queued)) {
      if (msg->msg == CURLMSG_DONE) {
        result = msg->data.result;
        done = true;
      }
    }
    if (!done && running == 0) break;
    if (!done) curl_multi_poll(multi, nullptr, 0, 50, nullptr);
  }
  curl_multi_remove_handle(multi, easy);
  curl_multi_cleanup(multi);
  return result;
}

void set_blob(CURL* easy, CURLoption option, const std::string& data) {
  curl_blob blob{const_cast<char*>(data.data()), data.size(), CURL_BLOB_COPY};
  curl_easy_setopt(easy, option, &blob);
}

/// Splits "scheme://host:port/rest" into its parts; port defaults from the scheme.
struct UrlParts {
  std::string scheme, host, port, rest;
};
UrlParts split_url(const std::string& url) {
  UrlParts p;
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return p;
  p.scheme = url.substr(0, scheme_end);
  const auto host_start = scheme_end + 3;
  const auto path_start = url.find('/', host_start);
  std::string authority =
      url.substr(host_start, path_start == std::string::npos ? std::string::npos : path_start - host_start);
  p.rest = path_start == std::string::npos ? "" : url.substr(path_start);
  const auto colon = authority.rfind(':');
  if (colon != std::string::npos && authority.find(']', colon) == std::string::npos) {
    p.host = authority.substr(0, colon);
    p.port = authority.substr(colon + 1);
  } else {
    p.host = authority;
    p.port = p.scheme == "https" ? "443" : "80";
  }
  return p;
}

class CurlTransport final : public HttpTransport {
 public:
  explicit CurlTransport(TransportOptions options) : m_options(std::move(options)) { static GlobalInit init; }
  ~CurlTransport() override {
    for (CURL* e : m_pool) curl_easy_cleanup(e);
  }
  CurlTransport(const CurlTransport&) = delete;
  CurlTransport& operator=(const CurlTransport&) = delete;

  Expected<HttpResponse> send(const HttpRequest& request, const DataSink* sink,
                              const std::atomic<bool>* cancel) override {
    CURL* easy = acquire();
    HttpResponse response;
    Transfer t{easy, &response, sink, cancel, false};
    const PerSend per = configure(easy, request, sink != nullptr);
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &on_header);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &on_body);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, &on_progress);
    curl_easy_setopt(easy, CURLOPT_XFERINFODATA, &t);
    curl_slist* headers = nullptr;
    for (const auto& [k, v] : request.headers) headers = curl_slist_append(headers, (k + ": " + v).c_str());
    if (!per.host_header.empty()) headers = curl_slist_append(headers, per.host_header.c_str());
    headers = curl_slist_append(headers, "Expect:");
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);

    const CURLcode rc = cancel != nullptr ? perform_cancellable(easy, *cancel) : curl_easy_perform(easy);
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    response.status = static_cast<int>(status);
    curl_slist_free_all(headers);
    release(easy);

    TransportError te;
    if (rc == CURLE_OK || (rc == CURLE_WRITE_ERROR && t.stopped_by_sink)) {
      thread_error() = te;
      return response;
    }
    te.cancelled = (cancel != nullptr && cancel->load()) || rc == CURLE_ABORTED_BY_CALLBACK ||
                   (rc == CURLE_WRITE_ERROR && !t.stopped_by_sink);
    if (te.cancelled) {
      thread_error() = te;
      return response;  // cancellation is not an error: the caller asked for it
    }
    te.connect_failed =
        rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_COULDNT_RESOLVE_PROXY;
    te.timed_out = rc == CURLE_OPERATION_TIMEDOUT;
    thread_error() = te;
    return make_error(te.timed_out ? ErrorCode::timeout : ErrorCode::http,
                      request.method + " " + per.display_prefix + split_url(request.url).rest + ": " +
                          curl_easy_strerror(rc));
  }

  [[nodiscard]] TransportError last_error() const override { return thread_error(); }

 private:
  static TransportError& thread_error() {
    thread_local TransportError e;
    return e;
  }

  CURL* acquire() {
    std::lock_guard lock(m_mutex);
    if (!m_pool.empty()) {
      CURL* e = m_pool.back();
      m_pool.pop_back();
      return e;
    }
    return curl_easy_init();
  }
  void release(CURL* e) {
    std::lock_guard lock(m_mutex);
    m_pool.push_back(e);
  }

  struct SlistFree {
    void operator()(curl_slist* l) const { curl_slist_free_all(l); }
  };
  struct PerSend {
    std::string display_prefix;
    std::string host_header;
    std::unique_ptr<curl_slist, SlistFree> connect_to;
  };

  PerSend configure(CURL* easy, const HttpRequest& request, bool streaming) {
    PerSend per;
    std::string url = request.url;
    const UrlParts parts = split_url(url);
    per.display_prefix = parts.scheme + "://" + parts.host + ":" + parts.port;
    curl_slist* connect_to = nullptr;
    if (!m_options.tls_server_name.empty() && parts.scheme == "https") {
      // Verify and send SNI for tls-server-name while connecting to the real host.
      url = parts.scheme + "://" + m_options.tls_server_name + ":" + parts.port + parts.rest;
      const std::string mapping =
          m_options.tls_server_name + ":" + parts.port + ":" + parts.host + ":" + parts.port;
      connect_to = curl_slist_append(nullptr, mapping.c_str());
      per.host_header = "Host: " + parts.host + ":" + parts.port;
    }
    curl_easy_setopt(easy, CURLOPT_CONNECT_TO, connect_to);
    per.connect_to.reset(connect_to);
    curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    if (request.method == "GET") {
      curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
    } else {
      curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request.body.c_str());
      curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    }
    // Streams (watch, log follow) ask for no compression: a compressing server or proxy buffers
    // output, which would hold back events and log lines.
    curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, m_options.compression && !streaming ? "" : nullptr);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, streaming ? 0L : static_cast<long>(m_options.timeout.count()));
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(m_options.connect_timeout.count()));
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, m_options.insecure_skip_tls_verify ? 0L : 1L);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, m_options.insecure_skip_tls_verify ? 0L : 2L);
    if (!m_options.ca_data.empty())
      set_blob(easy, CURLOPT_CAINFO_BLOB, m_options.ca_data);
    else if (!m_options.ca_file.empty())
      curl_easy_setopt(easy, CURLOPT_CAINFO, m_options.ca_file.c_str());
    const std::string& cert = !request.client_certificate_pem.empty() ? request.client_certificate_pem
                                                                      : m_options.client_certificate_data;
    const std::string& key =
        !request.client_key_pem.empty() ? request.client_key_pem : m_options.client_key_data;
    if (!cert.empty()) {
      set_blob(easy, CURLOPT_SSLCERT_BLOB, cert);
      curl_easy_setopt(easy, CURLOPT_SSLCERTTYPE, "PEM");
    } else if (!m_options.client_certificate_file.empty()) {
      curl_easy_setopt(easy, CURLOPT_SSLCERT, m_options.client_certificate_file.c_str());
    }
    if (!key.empty()) {
      set_blob(easy, CURLOPT_SSLKEY_BLOB, key);
      curl_easy_setopt(easy, CURLOPT_SSLKEYTYPE, "PEM");
    } else if (!m_options.client_key_file.empty()) {
      curl_easy_setopt(easy, CURLOPT_SSLKEY, m_options.client_key_file.c_str());
    }
    if (!m_options.proxy_url.empty()) curl_easy_setopt(easy, CURLOPT_PROXY, m_options.proxy_url.c_str());
    return per;
  }

  TransportOptions m_options;
  std::mutex m_mutex;
  std::vector<CURL*> m_pool;
};

}  // namespace

std::unique_ptr<HttpTransport> make_curl_transport(TransportOptions options) {
  return std::make_unique<CurlTransport>(std::move(options));
}

}  // namespace kpt::kube
