#include "model/trainjob/status_request.hpp"

#include "model/trainjob/constants.hpp"

#include <cctype>
#include <limits>

namespace kpt::model::trainjob {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

constexpr int k_go_max_depth = 10000;  // encoding/json's scanner nesting limit

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The first JSON value of `text` as far as json.Decoder reads it: an object or array up to its
// closing bracket, a string up to its quote, a literal or number up to the next delimiter.
Expected<std::string_view> first_value(std::string_view text) {
  std::size_t at = 0;
  while (at < text.size() && is_space(text[at])) ++at;
  if (at == text.size()) return make_error(ErrorCode::invalid, "EOF");
  const std::size_t start = at;
  if (text[at] != '{' && text[at] != '[' && text[at] != '"') {
    while (at < text.size() && (std::isalnum(static_cast<unsigned char>(text[at])) != 0 || text[at] == '-' ||
                                text[at] == '+' || text[at] == '.')) {
      ++at;
    }
    return text.substr(start, std::max<std::size_t>(at - start, 1));
  }
  int depth = 0;
  bool in_string = false;
  for (; at < text.size(); ++at) {
    const char c = text[at];
    if (in_string) {
      if (c == '\\') {
        ++at;
      } else if (c == '"') {
        in_string = false;
        if (depth == 0) return text.substr(start, at + 1 - start);
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > k_go_max_depth) return make_error(ErrorCode::invalid, "exceeded max depth");
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return text.substr(start, at + 1 - start);
    }
  }
  return make_error(ErrorCode::invalid, "unexpected EOF");
}

// encoding/json matches a key to a field name exactly or, failing that, case-insensitively.
bool key_is(const std::string& key, std::string_view field) {
  if (key.size() != field.size()) return false;
  for (std::size_t i = 0; i < key.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(key[i])) !=
        std::tolower(static_cast<unsigned char>(field[i])))
      return false;
  }
  return true;
}

Error type_error(const ordered_json& value, std::string_view field, std::string_view go_type) {
  return make_error(ErrorCode::invalid, "json: cannot unmarshal " + std::string(value.type_name()) +
                                            " into Go struct field " + std::string(field) + " of type " +
                                            std::string(go_type));
}

Expected<std::optional<std::int32_t>> decode_int32(const ordered_json& value, std::string_view field) {
  if (value.is_null()) return std::optional<std::int32_t>{};
  // is_number_integer() holds for unsigned numbers too: those are checked as unsigned first.
  const bool fits =
      value.is_number_unsigned()
          ? value.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())
          : value.is_number_integer() &&
                value.get<std::int64_t>() >= std::numeric_limits<std::int32_t>::min() &&
                value.get<std::int64_t>() <= std::numeric_limits<std::int32_t>::max();
  if (!fits) return type_error(value, field, "int32");
  return std::optional<std::int32_t>{static_cast<std::int32_t>(value.get<std::int64_t>())};
}

Expected<void> decode_metric(const ordered_json& value, StatusMetric& metric) {
  if (value.is_null()) return {};
  if (!value.is_object()) return type_error(value, "TrainerStatus.trainerStatus.metrics", "v1alpha1.Metric");
  for (const auto& [key, v] : value.items()) {
    std::string* target = key_is(key, "name") ? &metric.name : key_is(key, "value") ? &metric.value : nullptr;
    if (target == nullptr || v.is_null()) continue;
    if (!v.is_string()) return type_error(v, "Metric.trainerStatus.metrics." + key, "string");
    *target = v.get<std::string>();
  }
  return {};
}

Expected<void> decode_trainer_status(const ordered_json& value, TrainerStatus& status) {
  for (const auto& [key, v] : value.items()) {
    if (key_is(key, "progressPercentage") || key_is(key, "estimatedRemainingSeconds")) {
      auto n = decode_int32(v, "TrainerStatus.trainerStatus." + key);
      if (!n) return n.error();
      (key_is(key, "progressPercentage") ? status.progress_percentage : status.estimated_remaining_seconds) =
          *n;
    } else if (key_is(key, "metrics")) {
      if (v.is_null()) {
        status.metrics.clear();
        continue;
      }
      if (!v.is_array()) return type_error(v, "TrainerStatus.trainerStatus.metrics", "[]v1alpha1.Metric");
      std::vector<StatusMetric> metrics(v.size());
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (auto m = decode_metric(v[i], metrics[i]); !m) return m.error();
      }
      status.metrics = std::move(metrics);
    } else if (key_is(key, "lastUpdatedTime")) {
      if (v.is_null()) {
        status.last_updated_time.reset();
        continue;
      }
      if (!v.is_string()) return type_error(v, "TrainerStatus.trainerStatus.lastUpdatedTime", "string");
      const auto parsed = util::parse_time(v.get<std::string>());
      if (!parsed) {
        return make_error(ErrorCode::invalid, "parsing time " + v.dump() + " as RFC 3339: cannot parse");
      }
      status.last_updated_time = *parsed;
    }
  }
  return {};
}

// Go's encoder escapes these in strings (HTML safety and JavaScript line separators); outside
// strings they never occur in compact JSON.
std::string go_escape(const std::string& compact) {
  std::string out;
  out.reserve(compact.size());
  for (std::size_t i = 0; i < compact.size(); ++i) {
    const char c = compact[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xe2' && i + 2 < compact.size() && compact[i + 1] == '\x80' &&
               (compact[i + 2] == '\xa8' || compact[i + 2] == '\xa9')) {
      out += compact[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

// Go's %q of a string, as field errors print invalid values.
std::string go_quote(const std::string& text) { return json(text).dump(); }

}  // namespace

Expected<StatusUpdate> decode_status_update(std::string_view body) {
  auto value_text = first_value(body);
  if (!value_text) return value_text.error();
  const auto value = ordered_json::parse(*value_text, nullptr, false);
  if (value.is_discarded()) return make_error(ErrorCode::invalid, "invalid character in the request body");
  StatusUpdate update;
  if (value.is_null()) return update;
  if (!value.is_object()) {
    return make_error(ErrorCode::invalid, "json: cannot unmarshal " + std::string(value.type_name()) +
                                              " into Go value of type v1alpha1.UpdateTrainJobStatusRequest");
  }
  for (const auto& [key, v] : value.items()) {
    if (!key_is(key, "trainerStatus")) continue;
    if (v.is_null()) {
      update.trainer_status.reset();
      continue;
    }
    if (!v.is_object())
      return type_error(v, "UpdateTrainJobStatusRequest.trainerStatus", "v1alpha1.TrainerStatus");
    // A second key for the same field decodes into what the first one left, as Go does.
    if (!update.trainer_status) update.trainer_status.emplace();
    if (auto decoded = decode_trainer_status(v, *update.trainer_status); !decoded) return decoded.error();
  }
  return update;
}

std::string encode_status_update(const StatusUpdate& update) {
  ordered_json out = ordered_json::object();
  if (update.trainer_status) {
    const TrainerStatus& s = *update.trainer_status;
    ordered_json ts = ordered_json::object();
    if (s.progress_percentage) ts["progressPercentage"] = *s.progress_percentage;
    if (s.estimated_remaining_seconds) ts["estimatedRemainingSeconds"] = *s.estimated_remaining_seconds;
    if (!s.metrics.empty()) {
      ordered_json metrics = ordered_json::array();
      for (const auto& m : s.metrics) {
        ordered_json item = ordered_json::object();
        if (!m.name.empty()) item["name"] = m.name;
        if (!m.value.empty()) item["value"] = m.value;
        metrics.push_back(std::move(item));
      }
      ts["metrics"] = std::move(metrics);
    }
    // metav1.Time is a struct: never omitted, its zero value written as null.
    ts["lastUpdatedTime"] =
        s.last_updated_time ? ordered_json(util::format_time(*s.last_updated_time)) : ordered_json();
    out["trainerStatus"] = std::move(ts);
  }
  return go_escape(out.dump()) + "\n";
}

json trainer_status_json(const TrainerStatus& status) {
  json out = json::object();
  if (status.progress_percentage) out["progressPercentage"] = *status.progress_percentage;
  if (status.estimated_remaining_seconds)
    out["estimatedRemainingSeconds"] = *status.estimated_remaining_seconds;
  if (!status.metrics.empty()) {
    out["metrics"] = json::array();
    for (const auto& m : status.metrics) out["metrics"].push_back({{"name", m.name}, {"value", m.value}});
  }
  if (status.last_updated_time) out["lastUpdatedTime"] = util::format_time(*status.last_updated_time);
  return out;
}

StatusAnswer status_failure(int code, const std::string& reason, const std::string& message) {
  ordered_json body = ordered_json::object();
  body["metadata"] = ordered_json::object();
  body["status"] = "Failure";
  body["message"] = message;
  body["reason"] = reason;
  body["code"] = code;
  return {code, go_escape(body.dump()) + "\n"};
}

StatusAnswer status_forbidden() { return status_failure(403, "Forbidden", "Forbidden"); }
StatusAnswer status_invalid_payload() { return status_failure(422, "Invalid", "Invalid payload"); }
StatusAnswer status_payload_too_large() {
  return status_failure(413, "RequestEntityTooLarge", "Payload too large");
}
StatusAnswer status_route_not_found() { return status_failure(404, "NotFound", "Not found"); }
StatusAnswer status_job_not_found() { return status_failure(404, "NotFound", "Train job not found"); }
StatusAnswer status_internal_error() { return status_failure(500, "InternalError", "Internal error"); }
StatusAnswer status_rejected(const std::string& message) { return status_failure(422, "Invalid", message); }

std::string bearer_credential(std::string_view header) {
  std::vector<std::string_view> fields;
  std::size_t at = 0;
  while (at < header.size()) {
    while (at < header.size() && std::isspace(static_cast<unsigned char>(header[at])) != 0) ++at;
    const std::size_t start = at;
    while (at < header.size() && std::isspace(static_cast<unsigned char>(header[at])) == 0) ++at;
    if (at > start) fields.push_back(header.substr(start, at - start));
  }
  if (fields.size() != 2 || !key_is(std::string(fields[0]), "bearer")) return {};
  return std::string(fields[1]);
}

json trainjob_status_apply(const StatusTarget& target, const TrainerStatus& status) {
  return {{"apiVersion", k_api_version},
          {"kind", k_kind_trainjob},
          {"metadata", {{"name", target.name}, {"namespace", target.ns}}},
          {"status", {{"trainerStatus", trainer_status_json(status)}}}};
}

std::vector<std::string> trainer_status_errors(const TrainerStatus& status) {
  const std::string base = "status.trainerStatus";
  std::vector<std::string> out;
  // The schema's words: "<path>: Invalid value: <v>: <path> in body should be ...".
  const auto invalid = [&out](const std::string& path, const std::string& value, const std::string& rule) {
    out.push_back(path + ": Invalid value: " + value + ": " + path + " in body should be " + rule);
  };
  if (status.estimated_remaining_seconds && *status.estimated_remaining_seconds < 0) {
    invalid(base + ".estimatedRemainingSeconds", std::to_string(*status.estimated_remaining_seconds),
            "greater than or equal to 0");
  }
  if (status.metrics.size() > 256) {
    out.push_back(base + ".metrics: Too many: " + std::to_string(status.metrics.size()) +
                  ": must have at most 256 items");
  }
  for (std::size_t i = 0; i < status.metrics.size() && i < 256; ++i) {
    for (const auto& [field, value] :
         {std::pair{"name", &status.metrics[i].name}, std::pair{"value", &status.metrics[i].value}}) {
      const std::string path = base + ".metrics[" + std::to_string(i) + "]." + field;
      if (value->empty()) invalid(path, "\"\"", "at least 1 chars long");
      if (value->size() > 64) invalid(path, go_quote(*value), "at most 64 chars long");
    }
  }
  if (status.progress_percentage) {
    const std::string value = std::to_string(*status.progress_percentage);
    if (*status.progress_percentage < 0)
      invalid(base + ".progressPercentage", value, "greater than or equal to 0");
    if (*status.progress_percentage > 100)
      invalid(base + ".progressPercentage", value, "less than or equal to 100");
  }
  if (!status.last_updated_time)
    out.push_back(base +
                  ": Invalid value: \"object\": lastUpdatedTime is required when trainerStatus is present");
  return out;
}

std::string invalid_object_message(const std::string& kind_group, const std::string& name,
                                   const std::vector<std::string>& errors) {
  std::string joined;
  for (const auto& e : errors) joined += (joined.empty() ? "" : ", ") + e;
  return kind_group + " \"" + name + "\" is invalid: " + (errors.size() > 1 ? "[" + joined + "]" : joined);
}

json pytorchjob_progress_patch(const TrainerStatus& status) {
  json annotations = {{k_trainer_status_annotation, trainer_status_json(status).dump()},
                      {k_progress_annotation, nullptr}};
  if (status.progress_percentage)
    annotations[k_progress_annotation] = std::to_string(*status.progress_percentage);
  return {{"metadata", {{"annotations", annotations}}}};
}

}  // namespace kpt::model::trainjob
