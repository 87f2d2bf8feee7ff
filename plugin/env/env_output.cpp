#include "plugin/env/env_output.hpp"

#include "plugin/ansi.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <ostream>
#include <set>

namespace kpt::plugin {

namespace {

/// Writes rows as left-aligned columns separated by two spaces. Cells of `marked` rows (after the
/// first column) are highlighted when `colour` is on.
void write_columns(std::ostream& out, const std::vector<std::vector<std::string>>& rows,
                   const std::vector<bool>& marked, bool colour) {
  util::ColumnLayout layout;
  layout.gap = 2;
  if (colour) {
    layout.paint = [&marked](std::size_t row, std::size_t column) {
      return marked[row] && column > 0 ? util::CellPaint{ansi::bold_yellow, ansi::reset} : util::CellPaint{};
    };
  }
  out << util::format_columns(rows, layout);
}

/// The effective value of each variable for a pod (the last entry of a name wins).
std::map<std::string, std::string> effective(const std::vector<model::pytorchjob::EnvVar>& env) {
  std::map<std::string, std::string> out;
  for (const auto& v : env) out[v.name] = v.value;
  return out;
}

}  // namespace

std::vector<model::pytorchjob::EnvVar> full_env(const model::pytorchjob::ReplicaPodPlan& pod) {
  std::vector<model::pytorchjob::EnvVar> out = pod.user_env;
  out.insert(out.end(), pod.env.begin(), pod.env.end());
  return out;
}

void write_env_table(std::ostream& out, const std::vector<std::string>& header,
                     const std::vector<EnvTablePod>& pods, bool colour) {
  std::vector<std::vector<std::string>> rows = {header};
  for (const auto& p : pods) rows.push_back(p.cells);
  write_columns(out, rows, std::vector<bool>(rows.size(), false), false);
  out << "\n";

  std::vector<std::string> names;  // first-seen order across pods, pod-spec order within a pod
  std::vector<std::map<std::string, std::string>> values;
  for (const auto& p : pods) {
    for (const auto& v : p.env) {
      if (std::find(names.begin(), names.end(), v.name) == names.end()) names.push_back(v.name);
    }
    values.push_back(effective(p.env));
  }
  if (names.empty()) {
    out << "(no variables)\n";
    return;
  }
  rows = {{"VARIABLE"}};
  std::vector<bool> marked = {false};
  bool any_marked = false;
  for (const auto& p : pods) rows[0].push_back(p.key);
  for (const auto& name : names) {
    std::vector<std::string> row = {name};
    std::set<std::string> distinct;
    for (const auto& v : values) {
      const auto it = v.find(name);
      row.push_back(it == v.end() ? "-" : it->second.empty() ? "\"\"" : it->second);
      distinct.insert(row.back());
    }
    const bool differs = distinct.size() > 1;
    any_marked = any_marked || differs;
    if (differs && !colour) row[0] += " *";
    rows.push_back(std::move(row));
    marked.push_back(differs);
  }
  write_columns(out, rows, marked, colour);
  if (any_marked && !colour) out << "* differs between pods\n";
}

void write_env_table(std::ostream& out, const std::vector<model::pytorchjob::ReplicaPodPlan>& pods,
                     bool colour) {
  std::vector<EnvTablePod> rows;
  for (const auto& p : pods) {
    rows.push_back(
        {p.name,
         {p.name, p.replica_type, std::to_string(p.index), p.rank ? std::to_string(*p.rank) : "-", p.service},
         full_env(p)});
  }
  write_env_table(out, {"POD", "TYPE", "INDEX", "RANK", "SERVICE"}, rows, colour);
}

void write_env_json(std::ostream& out, const model::pytorchjob::EnvStyle& style,
                    const std::vector<model::pytorchjob::ReplicaPodPlan>& pods) {
  using ordered = nlohmann::ordered_json;  // keys in the documented order
  ordered doc = {{"style", model::pytorchjob::to_string(style)}, {"pods", ordered::array()}};
  for (const auto& p : pods) {
    ordered env = ordered::array();
    for (const auto& v : full_env(p)) env.push_back({{"name", v.name}, {"value", v.value}});
    doc["pods"].push_back({{"name", p.name},
                           {"replicaType", p.replica_type},
                           {"index", p.index},
                           {"rank", p.rank ? ordered(*p.rank) : ordered()},
                           {"service", p.service},
                           {"env", env}});
  }
  out << doc.dump(2) << "\n";
}

void write_env_dotenv(std::ostream& out, const std::vector<model::pytorchjob::EnvVar>& env) {
  for (const auto& v : env) out << v.name << "=" << v.value << "\n";
}

void write_env_dotenv(std::ostream& out, const model::pytorchjob::ReplicaPodPlan& pod) {
  write_env_dotenv(out, full_env(pod));
}

std::vector<std::string> duplicate_notes(const std::vector<model::pytorchjob::ReplicaPodPlan>& pods) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& p : pods) {
    for (const auto& user : p.user_env) {
      const bool injected =
          std::any_of(p.env.begin(), p.env.end(), [&](const auto& v) { return v.name == user.name; });
      if (!injected || !seen.insert(p.replica_type + "/" + user.name).second) continue;
      out.push_back(util::quote(user.name) + " is set in the " + p.replica_type +
                    " template and injected again after it: the injected value is the one the pod sees");
    }
  }
  return out;
}

}  // namespace kpt::plugin
