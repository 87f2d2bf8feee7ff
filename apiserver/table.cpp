#include "apiserver/table.hpp"

#include "apiserver/builtin_tables.hpp"
#include "model/k8s/object_meta.hpp"
#include "util/time.hpp"

#include <cstdio>
#include <ctime>

namespace kpt::apiserver {

namespace {

using json = nlohmann::json;

json column(const std::string& name, const std::string& type, const std::string& description,
            int priority = 0, const std::string& format = {}) {
  return {{"name", name},
          {"type", type},
          {"format", format},
          {"description", description},
          {"priority", priority}};
}

json render_cell(const json& value, const std::string& type, std::int64_t now) {
  if (value.is_null()) return nullptr;
  if (type == "date" && value.is_string()) return human_duration(age_seconds(value.get<std::string>(), now));
  if ((type == "integer" || type == "number") && value.is_number()) return value;
  if (value.is_string()) return value;
  return value.dump();
}

}  // namespace

std::string human_duration(std::int64_t s) {
  char buf[32];
  if (s < -1) return "<invalid>";
  if (s < 0) return "0s";
  if (s < 120) return std::to_string(s) + "s";
  const std::int64_t m = s / 60;
  if (m < 10) {
    if (s % 60 == 0) return std::to_string(m) + "m";
    std::snprintf(buf, sizeof buf, "%lldm%llds", static_cast<long long>(m), static_cast<long long>(s % 60));
    return buf;
  }
  if (m < 180) return std::to_string(m) + "m";
  const std::int64_t h = m / 60;
  if (h < 8) {
    if (m % 60 == 0) return std::to_string(h) + "h";
    std::snprintf(buf, sizeof buf, "%lldh%lldm", static_cast<long long>(h), static_cast<long long>(m % 60));
    return buf;
  }
  if (h < 48) return std::to_string(h) + "h";
  if (h < 24 * 8) {
    if (h % 24 == 0) return std::to_string(h / 24) + "d";
    std::snprintf(buf, sizeof buf, "%lldd%lldh", static_cast<long long>(h / 24),
                  static_cast<long long>(h % 24));
    return buf;
  }
  if (h < 24 * 365 * 2) return std::to_string(h / 24) + "d";
  if (h < 24 * 365 * 8) {
    const std::int64_t d = h / 24;
    if (d % 365 == 0) return std::to_string(d / 365) + "y";
    std::snprintf(buf, sizeof buf, "%lldy%lldd", static_cast<long long>(d / 365),
                  static_cast<long long>(d % 365));
    return buf;
  }
  return std::to_string(h / 24 / 365) + "y";
}

std::int64_t age_seconds(const std::string& rfc3339, std::int64_t now_epoch) {
  const auto t = util::parse_time(rfc3339);
  return t ? now_epoch - t->time_since_epoch().count() : 0;
}

json eval_json_path(const json& object, const std::string& path) {
  const json* cur = &object;
  json holder;
  std::size_t i = path.empty() || path.front() != '.' ? 0 : 1;
  while (i < path.size()) {
    // `\.` is a dot inside a field name (an annotation key such as example.com/x).
    std::size_t end = path.find_first_of(".[", i);
    while (end != std::string::npos && end > i && path[end] == '.' && path[end - 1] == '\\')
      end = path.find_first_of(".[", end + 1);
    std::string field = path.substr(i, end == std::string::npos ? std::string::npos : end - i);
    for (auto at = field.find("\\."); at != std::string::npos; at = field.find("\\.", at + 1))
      field.erase(at, 1);
    if (!field.empty()) {
      if (!cur->is_object() || !cur->contains(field)) return nullptr;
      cur = &(*cur)[field];
    }
    if (end == std::string::npos) break;
    if (path[end] == '[') {
      const auto close = path.find(']', end);
      if (close == std::string::npos || !cur->is_array() || cur->empty()) return nullptr;
      const std::string idx = path.substr(end + 1, close - end - 1);
      long long n = 0;
      try {
        n = std::stoll(idx);
      } catch (...) {
        return nullptr;
      }
      if (n < 0) n += static_cast<long long>(cur->size());
      if (n < 0 || n >= static_cast<long long>(cur->size())) return nullptr;
      cur = &(*cur)[static_cast<std::size_t>(n)];
      end = close + 1;
      if (end < path.size() && path[end] == '.') ++end;
      i = end;
    } else {
      i = end + 1;
    }
  }
  return *cur;
}

json to_table(const ResourceInfo& res, const std::vector<json>& objects, const json& list_metadata,
              const TableOptions& options) {
  const BuiltinPrinter* printer = builtin_printer(res);
  json cols;
  const bool crd = res.kind == "CustomResourceDefinition";
  if (printer != nullptr) {
    cols = printer->columns;
  } else {
    cols = json::array({column("Name", "string", "Name must be unique within a namespace", 0, "name")});
    if (crd) cols.push_back(column("Created At", "date", "The time the CRD was created."));
    for (const auto& c : res.columns) cols.push_back(column(c.name, c.type, c.description, c.priority));
    if (res.columns.empty() && !crd)
      cols.push_back(column("Age", "string", "CreationTimestamp of the object"));
  }

  json rows = json::array();
  for (const auto& obj : objects) {
    json cells;
    if (printer != nullptr) {
      cells = printer->cells(obj, options.now_epoch);
    } else {
      const std::string created = model::k8s::meta_string(obj, "creationTimestamp");
      cells = json::array({model::k8s::meta_string(obj, "name")});
      if (crd) cells.push_back(created);
      for (const auto& c : res.columns)
        cells.push_back(render_cell(eval_json_path(obj, c.json_path), c.type, options.now_epoch));
      if (res.columns.empty() && !crd)
        cells.push_back(human_duration(age_seconds(created, options.now_epoch)));
    }
    json row_obj = options.include_object ? obj
                                          : json{{"kind", "PartialObjectMetadata"},
                                                 {"apiVersion", "meta.k8s.io/v1"},
                                                 {"metadata", obj["metadata"]}};
    rows.push_back({{"cells", cells}, {"object", row_obj}});
  }
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", list_metadata},
          {"columnDefinitions", options.include_columns ? cols : json::array()},
          {"rows", rows}};
}

}  // namespace kpt::apiserver
