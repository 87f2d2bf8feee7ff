#pragma once

#include "util/expected.hpp"
#include "util/selector.hpp"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace kpt::apiserver {

/// A parsed label selector: `a=b,c!=d,e in (x,y),f notin (z),g,!h`. Empty matches everything.
class LabelSelector {
 public:
  static Expected<LabelSelector> parse(const std::string& text);
  /// Matches an object's metadata.labels (a JSON object of strings, or null).
  [[nodiscard]] bool matches(const nlohmann::json& labels) const;
  [[nodiscard]] const std::vector<util::Requirement>& requirements() const { return m_reqs; }

 private:
  std::vector<util::Requirement> m_reqs;
};

/// A parsed field selector: `metadata.name=x,status.phase!=Running`. Only =, == and != exist.
/// Supported fields: metadata.name, metadata.namespace, status.phase, spec.nodeName, involvedObject.*,
/// type, reason (events); anything else is an error as on a real server.
class FieldSelector {
 public:
  static Expected<FieldSelector> parse(const std::string& text);
  [[nodiscard]] bool matches(const nlohmann::json& object) const;

 private:
  std::vector<util::Requirement> m_reqs;
};

}  // namespace kpt::apiserver
