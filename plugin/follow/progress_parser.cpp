#include "plugin/follow/progress_parser.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <tuple>

namespace kpt::plugin {

namespace {

constexpr std::size_t k_max_metrics = 16;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) { return c == ' ' || c == '\t'; }
bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (is_space(s.front()) || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (is_space(s.back()) || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// Reads a non-negative integer at `at`, moving past it.
std::optional<std::int64_t> read_int(std::string_view s, std::size_t& at) {
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(s.data() + at, s.data() + s.size(), n);
  if (ec != std::errc() || n < 0 || end == s.data() + at) return std::nullopt;
  at = static_cast<std::size_t>(end - s.data());
  return n;
}

void skip(std::string_view s, std::size_t& at, std::string_view chars) {
  while (at < s.size() && chars.find(s[at]) != std::string_view::npos) ++at;
}

/// "n/total" (or "n of total") at `at`, spaces allowed around the separator.
std::optional<std::pair<std::int64_t, std::int64_t>> read_fraction(std::string_view s, std::size_t& at) {
  std::size_t p = at;
  const auto n = read_int(s, p);
  if (!n) return std::nullopt;
  skip(s, p, " ");
  if (p < s.size() && s[p] == '/') {
    ++p;
  } else if (s.substr(p, 3) == "of ") {
    p += 3;
  } else {
    return std::nullopt;
  }
  skip(s, p, " ");
  const auto total = read_int(s, p);
  if (!total || *total == 0 || *n > *total) return std::nullopt;
  at = p;
  return std::pair{*n, *total};
}

bool numeric_value(std::string_view v) {
  if (v.empty()) return false;
  double x = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  return ec == std::errc() && end == v.data() + v.size();
}

// The names that read as metrics on any line; elsewhere only on lines with a counter or a dict.
bool metric_name(const std::string& name) {
  static constexpr std::array<std::string_view, 12> k_words = {
      "loss",       "acc", "lr",   "learning_rate", "grad_norm", "ppl",
      "perplexity", "f1",  "bleu", "reward",        "mae",       "mse"};
  const std::string n = lower(name);
  for (const auto prefix : {"eval_", "val_", "train_", "test_", "valid_"}) {
    if (n.rfind(prefix, 0) == 0) return true;
  }
  return std::any_of(k_words.begin(), k_words.end(),
                     [&n](std::string_view w) { return n == w || n.find(w) != std::string::npos; });
}

// `name=value` and `name: value` pairs with numeric values, in order (quotes and braces of a printed
// dict ignored); counters (epoch, step) and Lightning's v_num are no metrics.
std::vector<LineMetric> read_metrics(std::string_view text, bool any_name) {
  std::string s;
  for (const char c : text)
    s += (c == '\'' || c == '"' || c == '{' || c == '}' || c == '[' || c == ']') ? ' ' : c;
  std::vector<LineMetric> out;
  std::size_t at = 0;
  while (at < s.size() && out.size() < k_max_metrics) {
    if (!std::isalpha(static_cast<unsigned char>(s[at])) || (at > 0 && is_word(s[at - 1]))) {
      ++at;
      continue;
    }
    std::size_t end = at;
    while (end < s.size() && (is_word(s[end]) || s[end] == '/' || s[end] == '.' || s[end] == '-')) ++end;
    std::string name = s.substr(at, end - at);
    std::size_t p = end;
    skip(s, p, " ");
    if (p >= s.size() || (s[p] != '=' && s[p] != ':')) {
      at = end;
      continue;
    }
    ++p;
    skip(s, p, " ");
    std::size_t v_end = p;
    while (v_end < s.size() && !is_space(s[v_end]) && s[v_end] != ',' && s[v_end] != ';' && s[v_end] != '|')
      ++v_end;
    const std::string value = s.substr(p, v_end - p);
    const std::string n = lower(name);
    const bool counter = n == "epoch" || n == "step" || n == "iter" || n == "iteration" || n == "v_num";
    if (numeric_value(value) && !counter && (any_name || metric_name(name))) out.emplace_back(name, value);
    at = std::max(v_end, end);
  }
  return out;
}

// A tqdm bar: "{desc}: {pct}%|{bar}| {n}/{total} [{elapsed}<{remaining}, {rate}{, postfix}]" (the
// bar may be missing); the signature read is "n/total [elapsed<".
std::optional<LineProgress> read_tqdm(std::string_view s) {
  for (std::size_t open = s.find(" ["); open != std::string_view::npos; open = s.find(" [", open + 2)) {
    const std::size_t lt = s.find('<', open);
    const std::size_t close = s.find(']', open);
    if (lt == std::string_view::npos || close == std::string_view::npos || lt > close) continue;
    if (!parse_clock(trim(s.substr(open + 2, lt - open - 2)))) continue;
    // The counter ends right before " [".
    std::size_t start = open;
    while (start > 0 && (is_digit(s[start - 1]) || s[start - 1] == '/')) --start;
    std::size_t at = start;
    const auto fraction = read_fraction(s, at);
    if (!fraction || at != open) continue;
    LineProgress p;
    p.shape = "tqdm";
    p.unit = "it";
    std::tie(p.current, p.total) = *fraction;
    const std::string_view inside = s.substr(lt + 1, close - lt - 1);
    const auto comma = inside.find(',');
    p.remaining = parse_clock(trim(inside.substr(0, comma)));
    if (comma != std::string_view::npos) {
      const auto postfix = inside.substr(comma + 1);
      const auto second = postfix.find(',');  // the rate first, then the postfix
      if (second != std::string_view::npos) p.metrics = read_metrics(postfix.substr(second + 1), true);
    }
    // The description: what precedes "NN%" (and the bar), without its colon.
    std::string_view head = s.substr(0, start);
    const auto pct = head.find('%');
    if (pct != std::string_view::npos) {
      std::size_t d = pct;
      while (d > 0 && is_digit(head[d - 1])) --d;
      head = head.substr(0, d);
    }
    head = trim(head);
    if (!head.empty() && head.back() == ':') head.remove_suffix(1);
    p.label = std::string(trim(head));
    return p;
  }
  return std::nullopt;
}

/// The counter after a word ("Epoch 2/4", "epoch: 2/4", "Step [450/1000]", "epoch 2 of 4").
std::optional<std::pair<std::int64_t, std::int64_t>> counter_after(
    std::string_view s, const std::string& lowered, std::initializer_list<std::string_view> words) {
  for (const auto word : words) {
    for (auto at = lowered.find(word); at != std::string::npos; at = lowered.find(word, at + 1)) {
      if ((at > 0 && is_word(lowered[at - 1])) ||
          (at + word.size() < lowered.size() && is_word(lowered[at + word.size()]) &&
           !is_digit(lowered[at + word.size()])))
        continue;
      std::size_t p = at + word.size();
      skip(s, p, " :[(#");
      if (auto f = read_fraction(s, p)) return f;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> parse_clock(std::string_view text) {
  text = trim(text);
  double days = 0;
  if (const auto d = text.find("d,"); d != std::string_view::npos) {
    std::size_t at = 0;
    const auto n = read_int(text.substr(0, d), at);
    if (!n || at != d) return std::nullopt;
    days = static_cast<double>(*n);
    text = trim(text.substr(d + 2));
  }
  if (text.empty()) return std::nullopt;
  double total = 0;
  int parts = 0;
  std::size_t at = 0;
  while (true) {
    const auto n = read_int(text, at);
    if (!n) return std::nullopt;
    total = total * 60 + static_cast<double>(*n);
    ++parts;
    if (at == text.size()) break;
    if (text[at] != ':' || parts == 3) return std::nullopt;
    ++at;
  }
  if (parts < 2) return std::nullopt;
  return days * 86400 + total;
}

namespace {

// One redraw of a line, escape sequences removed, at most k_max_progress_line bytes.
std::string clean(std::string_view part) {
  std::string out;
  for (std::size_t i = 0; i < part.size() && out.size() < k_max_progress_line; ++i) {
    if (part[i] == '\x1b') {  // CSI: ESC [ parameters letter
      if (i + 1 < part.size() && part[i + 1] == '[') {
        i += 2;
        while (i < part.size() && !std::isalpha(static_cast<unsigned char>(part[i]))) ++i;
      }
      continue;
    }
    out += part[i];
  }
  return std::string(trim(out));
}

// The visible redraws of a line, last first, at most `count`.
std::vector<std::string> last_redraws(std::string_view raw, std::size_t count) {
  std::vector<std::string> out;
  std::size_t end = raw.size();
  while (out.size() < count) {
    const auto cr = end == 0 ? std::string_view::npos : raw.rfind('\r', end - 1);
    const std::size_t start = cr == std::string_view::npos ? 0 : cr + 1;
    std::string part = clean(raw.substr(start, end - start));
    if (!part.empty()) out.push_back(std::move(part));
    if (cr == std::string_view::npos) break;
    end = cr;
  }
  return out;
}

std::optional<LineProgress> parse_text(const std::string& text) {
  if (text.empty()) return std::nullopt;
  if (auto bar = read_tqdm(text)) return bar;
  const std::string lowered = lower(text);
  const auto epoch = counter_after(text, lowered, {"epoch"});
  const auto step = counter_after(text, lowered, {"step", "iteration", "iter", "batch"});
  LineProgress p;
  if (epoch && step) {
    p.shape = "epoch-step";
    p.unit = "step";
    std::tie(p.current, p.total) = *step;
    p.label = "epoch " + std::to_string(epoch->first) + "/" + std::to_string(epoch->second);
    p.fraction = (static_cast<double>(epoch->first - 1) +
                  static_cast<double>(step->first) / static_cast<double>(step->second)) /
                 static_cast<double>(epoch->second);
  } else if (epoch || step) {
    p.shape = epoch ? "epoch" : "step";
    p.unit = p.shape;
    std::tie(p.current, p.total) = epoch ? *epoch : *step;
  }
  const bool dict = text.front() == '{' && text.back() == '}';
  p.metrics = read_metrics(text, p.total > 0 || dict);
  if (p.total == 0 && p.metrics.empty()) return std::nullopt;
  if (p.total == 0) p.shape = "metrics";
  return p;
}

}  // namespace

std::string visible_text(std::string_view raw) {
  auto parts = last_redraws(raw, 1);
  return parts.empty() ? std::string() : parts.front();
}

std::optional<LineProgress> parse_progress_line(std::string_view raw) {
  // A bar's redraws share a line with what was written between them (the Trainer's metrics): the
  // last counter and the last metrics of the line's last few redraws.
  std::optional<LineProgress> counter;
  std::vector<LineMetric> metrics;
  for (const auto& part : last_redraws(raw, 8)) {
    auto p = parse_text(part);
    if (!p) continue;
    if (metrics.empty()) metrics = p->metrics;
    if (p->total > 0) {
      counter = std::move(p);
      break;
    }
  }
  if (!counter && metrics.empty()) return std::nullopt;
  LineProgress out = counter ? *counter : LineProgress{};
  if (!counter) out.shape = "metrics";
  out.metrics = std::move(metrics);
  return out;
}

}  // namespace kpt::plugin
