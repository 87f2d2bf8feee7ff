// Watch streams and pod logs: the two streamed responses of ApiHandler.
#include "apiserver/api_handler.hpp"
#include "apiserver/query_params.hpp"
#include "apiserver/table.hpp"
#include "model/k8s/object_meta.hpp"

#include <algorithm>
#include <ctime>

namespace kpt::apiserver {

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr std::int64_t k_default_watch_seconds = 1800;
/// A longer timeoutSeconds is taken as this (ten years): only so that the deadline cannot overflow.
constexpr std::int64_t k_max_watch_seconds = std::int64_t{10} * 365 * 24 * 3600;
/// How long a stream waits for something to send before it looks whether its client is still
/// there; a client that went away frees the stream's thread within about this.
constexpr std::chrono::milliseconds k_stream_poll{500};

struct WatchSpec {
  ResourcePtr res;
  std::string ns;
  LabelSelector labels;
  FieldSelector fields;
  std::uint64_t from_rv = 0;
  bool initial_events = false;
  bool initial_events_bookmark = false;
  bool bookmarks = false;
  bool table = false;
  bool include_object = false;
  Clock::time_point deadline;
  std::int64_t cut_after = 0;
};

/// Writes watch events; converts objects to Tables when asked.
class EventWriter {
 public:
  EventWriter(const WatchSpec& spec, const ChunkWriter& write) : m_spec(spec), m_write(write) {}

  bool send(const std::string& type, json object) {
    if (m_spec.table && type != "ERROR" && type != "BOOKMARK") {
      TableOptions opts;
      opts.include_columns = m_first;
      opts.include_object = m_spec.include_object;
      opts.now_epoch = static_cast<std::int64_t>(std::time(nullptr));
      const json meta = {{"resourceVersion", model::k8s::meta_string(object, "resourceVersion")}};
      object = to_table(*m_spec.res, {object}, meta, opts);
      m_first = false;
    }
    ++m_sent;
    return m_write(json{{"type", type}, {"object", std::move(object)}}.dump() + "\n");
  }
  [[nodiscard]] std::int64_t sent() const { return m_sent; }

 private:
  const WatchSpec& m_spec;
  const ChunkWriter& m_write;
  bool m_first = true;
  std::int64_t m_sent = 0;
};

bool matches(const WatchSpec& spec, const json& obj) {
  return spec.labels.matches(obj["metadata"].value("labels", json::object())) && spec.fields.matches(obj);
}

void run_watch(Store& store, const WatchSpec& spec, std::chrono::milliseconds bookmark_every,
               const ChunkWriter& write, const std::atomic<bool>& stopping) {
  EventWriter out(spec, write);
  const auto cut = [&] { return spec.cut_after > 0 && out.sent() >= spec.cut_after; };
  std::uint64_t cursor = spec.from_rv;
  if (spec.initial_events) {
    for (auto& obj : store.list(spec.res->storage_key(), spec.ns, {}, &cursor)) {
      if (!matches(spec, obj)) continue;
      obj["apiVersion"] = spec.res->group_version();
      if (!out.send("ADDED", std::move(obj)) || cut()) return;
    }
    if (spec.initial_events_bookmark) {
      json mark = {{"kind", spec.res->kind},
                   {"apiVersion", spec.res->group_version()},
                   {"metadata",
                    {{"resourceVersion", std::to_string(cursor)},
                     {"annotations", {{"k8s.io/initial-events-end", "true"}}}}}};
      if (!out.send("BOOKMARK", mark)) return;
    }
  }
  auto last_activity = Clock::now();
  while (!stopping && !store.is_shut_down()) {
    const std::uint64_t seen = store.current_rv();
    auto events = store.events_after(spec.res->storage_key(), spec.ns, cursor, 500);
    if (!events) {
      out.send("ERROR", status_json(events.error()));
      return;
    }
    for (auto& e : events.value()) {
      cursor = e.rv;
      // As a real server: an object that starts matching the selectors is ADDED, one that
      // stops matching is DELETED, for this watch.
      const bool now_matches = matches(spec, e.object);
      if (e.type == "MODIFIED" && !e.previous.is_null() && now_matches != matches(spec, e.previous)) {
        e.type = now_matches ? "ADDED" : "DELETED";
      } else if (!now_matches) {
        continue;
      }
      e.object["apiVersion"] = spec.res->group_version();
      if (!out.send(e.type, std::move(e.object)) || cut()) return;
      last_activity = Clock::now();
    }
    if (events.value().size() < 500) cursor = std::max(cursor, seen);
    const auto now = Clock::now();
    if (now >= spec.deadline) return;
    if (!write({})) return;  // the client has gone
    if (spec.bookmarks && !spec.table && now - last_activity >= bookmark_every) {
      json mark = {{"kind", spec.res->kind},
                   {"apiVersion", spec.res->group_version()},
                   {"metadata", {{"resourceVersion", std::to_string(cursor)}}}};
      if (!out.send("BOOKMARK", mark)) return;
      last_activity = now;
    }
    store.wait_for_change(seen, std::min(spec.deadline, now + k_stream_poll));
  }
}

}  // namespace

HttpResponse ApiHandler::do_watch(const HttpRequest& req, const Target& t) {
  auto spec = std::make_shared<WatchSpec>();
  spec->res = t.resource;
  spec->ns = t.ns;
  auto labels = LabelSelector::parse(req.param("labelSelector"));
  if (!labels) return error_response(bad_request(labels.error().message));
  auto fields = FieldSelector::parse(req.param("fieldSelector"));
  if (!fields) return error_response(bad_request(fields.error().message));
  spec->labels = std::move(*labels);
  spec->fields = std::move(*fields);
  const std::string rv = req.param("resourceVersion");
  const bool send_initial = req.flag("sendInitialEvents");
  if (rv.empty() || rv == "0" || send_initial) {
    spec->initial_events = true;
    spec->initial_events_bookmark = send_initial;
  } else {
    char* end = nullptr;
    spec->from_rv = std::strtoull(rv.c_str(), &end, 10);
    if (end == nullptr || *end != '\0')
      return error_response(bad_request("invalid resource version: '" + rv + "'"));
  }
  spec->bookmarks = req.flag("allowWatchBookmarks");
  spec->table = wants_table(req.header("accept"));
  spec->include_object = req.param("includeObject") == "Object";
  auto timeout = int64_param(req, "timeoutSeconds");
  if (!timeout) return error_response(timeout.error());
  // As kube-apiserver: 0 (or none) is the default; a negative timeout ends the watch at once.
  const std::int64_t seconds = !*timeout || **timeout == 0
                                   ? k_default_watch_seconds
                                   : std::clamp<std::int64_t>(**timeout, 0, k_max_watch_seconds);
  spec->deadline = Clock::now() + std::chrono::seconds(seconds);
  const auto plan = m_faults.plan();
  spec->cut_after = plan.cut_watch_after_events;
  if (plan.compact_history) m_store.compact();
  // A resourceVersion older than the history fails before the stream starts, as on a real server.
  if (!spec->initial_events) {
    auto probe = m_store.events_after(spec->res->storage_key(), spec->ns, spec->from_rv, 0);
    if (!probe) return error_response(probe.error());
  }
  HttpResponse r;
  // Not plain "application/json": httplib would gzip the stream and hold events in the
  // compressor's buffer. client-go ignores the parameter.
  r.content_type = "application/json;stream=watch";
  Store& store = m_store;
  const auto every = m_bookmark_interval;
  r.stream = [&store, spec, every](const ChunkWriter& write, const std::atomic<bool>& stopping) {
    run_watch(store, *spec, every, write, stopping);
  };
  return r;
}

HttpResponse ApiHandler::do_log(const HttpRequest& req, const Target& t) {
  auto lr = log_request_of(req, t.ns, t.name, std::chrono::system_clock::now());
  if (!lr) return error_response(lr.error());
  auto pod = m_ops.get(*t.resource, t.ns, t.name);
  if (!pod) return error_response(pod.error());
  auto opened = m_logs->open(lr.value(), pod.value());
  if (!opened) return error_response(opened.error());
  std::shared_ptr<LogStream> stream(std::move(opened.value()));
  HttpResponse r;
  // Streamed in chunks even when not followed, so that a big log never sits in memory whole.
  // Not text/*: a compressor would hold a followed stream's lines back.
  r.content_type = lr.value().follow ? "application/octet-stream" : "text/plain";
  const bool follow = lr.value().follow;
  r.stream = [stream, follow](const ChunkWriter& write, const std::atomic<bool>& stopping) {
    std::string chunk;
    while (!stopping) {
      chunk.clear();
      const bool more = stream->read(chunk, follow ? k_stream_poll : std::chrono::milliseconds(0));
      if (!write(chunk)) return;  // an empty chunk only looks whether the client is still there
      if (!more) return;
    }
  };
  return r;
}

}  // namespace kpt::apiserver
