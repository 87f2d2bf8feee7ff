#include "plugin/follow/progress.hpp"

#include "model/trainjob/status_request.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <nlohmann/json.hpp>

#include <re2/re2.h>

#include <algorithm>
#include <cmath>

namespace kpt::plugin {

namespace {

using nlohmann::json;

constexpr std::size_t k_max_pattern = 1024;
constexpr std::size_t k_max_points = 64;
constexpr std::size_t k_max_kept_metrics = 16;

double seconds_between(WallTime from, WallTime to) {
  return std::chrono::duration<double>(to - from).count();
}

double fraction_of(const LineProgress& p) {
  if (p.fraction) return std::clamp(*p.fraction, 0.0, 1.0);
  return p.total > 0 ? std::clamp(static_cast<double>(p.current) / static_cast<double>(p.total), 0.0, 1.0)
                     : 0.0;
}

std::string counter_text(const LineProgress& p) {
  if (p.total <= 0) return {};
  const std::string n = std::to_string(p.current) + "/" + std::to_string(p.total);
  if (p.shape == "epoch-step") return p.label + ", step " + n;
  if (p.shape == "epoch" || p.shape == "step") return p.shape + " " + n;
  return p.label.empty() ? n : p.label + " " + n;
}

void merge_metrics(std::vector<LineMetric>& kept, const std::vector<LineMetric>& fresh) {
  for (const auto& [name, value] : fresh) {
    auto it =
        std::find_if(kept.begin(), kept.end(), [&n = name](const LineMetric& m) { return m.first == n; });
    if (it != kept.end()) {
      it->second = value;
    } else if (kept.size() < k_max_kept_metrics) {
      kept.emplace_back(name, value);
    }
  }
}

}  // namespace

Expected<ProgressPattern> ProgressPattern::compile(const std::string& pattern) {
  if (pattern.size() > k_max_pattern)
    return make_error(ErrorCode::usage, "--progress: the pattern is longer than 1024 bytes");
  RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(8 << 20);
  auto re = std::make_shared<const RE2>(pattern, options);
  if (!re->ok())
    return make_error(ErrorCode::usage,
                      "--progress: invalid pattern " + util::quote(pattern) + ": " + re->error());
  ProgressPattern out;
  const auto& named = re->NamedCapturingGroups();
  const auto group = [&named](const char* name) {
    const auto it = named.find(name);
    return it == named.end() ? 0 : it->second;
  };
  out.m_current = group("current");
  out.m_total = group("total");
  out.m_percent = group("percent");
  if (out.m_percent == 0 && (out.m_current == 0 || out.m_total == 0)) {
    if (re->NumberOfCapturingGroups() < 2) {
      return make_error(ErrorCode::usage,
                        "--progress: the pattern needs two groups, the count done and the "
                        "total (or named current and total), or a group named percent");
    }
    out.m_current = 1;
    out.m_total = 2;
  }
  out.m_re = std::move(re);
  return out;
}

std::optional<LineProgress> ProgressPattern::match(std::string_view raw_line) const {
  const std::string text = visible_text(raw_line);
  const int groups = m_re->NumberOfCapturingGroups() + 1;
  std::vector<re2::StringPiece> found(static_cast<std::size_t>(groups));
  if (!m_re->Match(text, 0, text.size(), RE2::UNANCHORED, found.data(), groups)) return std::nullopt;
  const auto number = [&found](int g) -> std::optional<double> {
    if (g <= 0 || found[static_cast<std::size_t>(g)].data() == nullptr) return std::nullopt;
    try {
      const auto& piece = found[static_cast<std::size_t>(g)];
      return std::stod(std::string(piece.data(), piece.size()));
    } catch (const std::exception&) {
      return std::nullopt;
    }
  };
  LineProgress p;
  p.shape = "pattern";
  if (m_percent > 0) {
    const auto pct = number(m_percent);
    if (!pct || *pct < 0) return std::nullopt;
    p.current = std::llround(std::min(*pct, 100.0) * 10);
    p.total = 1000;
    p.fraction = std::min(*pct, 100.0) / 100;
    return p;
  }
  const auto current = number(m_current);
  const auto total = number(m_total);
  if (!current || !total || *total <= 0 || *current < 0) return std::nullopt;
  p.current = std::llround(*current);
  p.total = std::llround(*total);
  p.fraction = std::min(*current / *total, 1.0);
  p.metrics = parse_progress_line(raw_line).value_or(LineProgress{}).metrics;
  return p;
}

std::string ProgressView::source_text() const {
  return source == "trainerStatus" ? "from trainerStatus" : "from rank 0's log";
}

ProgressTracker::ProgressTracker(std::shared_ptr<const ProgressPattern> pattern)
    : m_pattern(std::move(pattern)) {}

void ProgressTracker::feed(std::string_view raw_line, WallTime when) {
  std::optional<LineProgress> p;
  if (m_pattern) {
    p = m_pattern->match(raw_line);
    if (!p) {
      if (auto other = parse_progress_line(raw_line)) merge_metrics(m_metrics, other->metrics);
      return;
    }
  } else {
    p = parse_progress_line(raw_line);
  }
  if (!p) return;
  merge_metrics(m_metrics, p->metrics);
  if (p->total > 0) take(*p, when);
}

void ProgressTracker::take(const LineProgress& p, WallTime when) {
  const std::string key = p.shape + "|" + p.unit + "|" + p.label + "|" + std::to_string(p.total);
  if (m_main && m_main->key != key) {
    // A shorter bar (an evaluation's) waits until the run's counter is done; the run's whole
    // ("Epoch [e/E], Step [s/S]") always wins over a part of it.
    const LineProgress& cur = m_main->last;
    const bool done = fraction_of(cur) >= 1.0;
    const bool wider = p.fraction.has_value() && !cur.fraction.has_value();
    const bool narrower = cur.fraction.has_value() && !p.fraction.has_value();
    if (!done && !wider && (narrower || p.total < cur.total)) return;
  }
  if (!m_main || m_main->key != key) m_main = Series{key, p, {}};
  m_main->last = p;
  auto& points = m_main->points;
  if (points.size() >= k_max_points) points.erase(points.begin() + 1);
  points.push_back({when, fraction_of(p)});
}

std::optional<ProgressView> ProgressTracker::view(WallTime now) const {
  if (!m_main && m_metrics.empty()) return std::nullopt;
  ProgressView v;
  v.source = "log";
  v.metrics = m_metrics;
  if (!m_main) return v;
  const LineProgress& last = m_main->last;
  const double f = fraction_of(last);
  v.percent = static_cast<int>(std::floor(f * 100 + 1e-9));
  v.counter = counter_text(last);
  const Point& newest = m_main->points.back();
  const double since_newest = std::max(0.0, seconds_between(newest.at, now));
  if (f >= 1.0) {
    v.eta_seconds = 0;
  } else if (last.remaining && !last.fraction) {
    v.eta_seconds = std::max(0.0, *last.remaining - since_newest);
  } else {
    const Point& oldest = m_main->points.front();
    double rate = 0;  // fraction per second
    if (newest.fraction > oldest.fraction && newest.at > oldest.at) {
      rate = (newest.fraction - oldest.fraction) / seconds_between(oldest.at, newest.at);
    } else if (m_start && f > 0 && newest.at > *m_start) {
      rate = f / seconds_between(*m_start, newest.at);
    }
    if (rate > 0) v.eta_seconds = std::max(0.0, (1.0 - f) / rate - since_newest);
  }
  return v;
}

std::optional<ProgressView> reported_progress(const json& job, WallTime now) {
  json status;
  if (util::string_at(job, "kind") == "TrainJob") {
    status = job.value("/status/trainerStatus"_json_pointer, json());
  } else {
    const std::string text = job.value("/metadata/annotations"_json_pointer, json::object())
                                 .value(model::trainjob::k_trainer_status_annotation, std::string{});
    if (!text.empty()) status = json::parse(text, nullptr, false);
  }
  if (!status.is_object()) return std::nullopt;
  ProgressView v;
  v.source = "trainerStatus";
  if (const auto p = status.find("progressPercentage"); p != status.end() && p->is_number_integer())
    v.percent = std::clamp(p->get<int>(), 0, 100);
  v.updated = util::string_at(status, "lastUpdatedTime");
  if (const auto eta = status.find("estimatedRemainingSeconds");
      eta != status.end() && eta->is_number_integer()) {
    double age = 0;
    if (const auto at = util::parse_time(v.updated)) age = std::max(0.0, seconds_between(*at, now));
    v.eta_seconds = std::max(0.0, eta->get<double>() - age);
  }
  std::string step, total_steps;
  for (const auto& m : status.value("metrics", json::array())) {
    if (!m.is_object()) continue;
    const std::string name = util::string_at(m, "name");
    const std::string value = util::string_at(m, "value");
    if (name == "current_step") step = value;
    if (name == "total_steps") total_steps = value;
    if (!name.empty()) v.metrics.emplace_back(name, value);
  }
  if (!step.empty() && !total_steps.empty()) v.counter = "step " + step + "/" + total_steps;
  return v;
}

std::string percent_cell(const std::optional<ProgressView>& view) {
  return view && view->percent ? std::to_string(*view->percent) + "%" : "-";
}

std::string eta_cell(const std::optional<ProgressView>& view) {
  if (!view || !view->eta_seconds) return "-";
  return util::format_age(std::chrono::seconds(std::llround(*view->eta_seconds)));
}

std::string progress_line(const ProgressView& view, std::size_t max_metrics) {
  std::vector<std::string> parts;
  if (view.percent) parts.push_back(std::to_string(*view.percent) + "%");
  if (!view.counter.empty()) parts.push_back(view.counter);
  if (view.eta_seconds) parts.push_back("ETA " + eta_cell(view));
  std::size_t shown = 0;
  for (const auto& [name, value] : view.metrics) {
    if (name == "current_step" || name == "total_steps" || name == "current_epoch") continue;
    if (shown++ == max_metrics) break;
    parts.push_back(name + "=" + value);
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out + " (" + view.source_text() + ")";
}

json progress_json(const ProgressView& view) {
  json metrics = json::array();
  for (const auto& [name, value] : view.metrics) metrics.push_back({{"name", name}, {"value", value}});
  json out = {{"percent", nullptr},
              {"etaSeconds", nullptr},
              {"source", view.source},
              {"counter", view.counter},
              {"metrics", metrics}};
  if (view.percent) out["percent"] = *view.percent;
  if (view.eta_seconds) out["etaSeconds"] = std::llround(*view.eta_seconds);
  if (!view.updated.empty()) out["updated"] = view.updated;
  return out;
}

}  // namespace kpt::plugin
