#pragma once

// The state convert_pytorchjob's two files share (from_pytorchjob.cpp, from_pytorchjob_policy.cpp);
// not part of the public API.

#include "model/trainjob/convert_runtime.hpp"
#include "model/trainjob/from_pytorchjob.hpp"
#include "model/trainjob/release.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace kpt::model::trainjob::detail {

/// A note whose text depends on whether the conversion ends with a TrainingRuntime: whether one is
/// needed is known only once every field has been seen.
struct PendingNote {
  ConvertNote::Kind kind = ConvertNote::Kind::carried;
  std::string field;
  std::string in_runtime;  ///< the text when there is a runtime
  std::string elsewhere;   ///< the text without one; "" when only a runtime can carry the field
};

struct Converter {
  using Kind = ConvertNote::Kind;

  Converter(const nlohmann::json& job_, TrainerRelease release_, std::string runtime_name_)
      : job(job_), release(release_), runtime_name(std::move(runtime_name_)) {}

  const nlohmann::json& job;
  TrainerRelease release;
  std::string runtime_name;
  nlohmann::json trainer = nlohmann::json::object();  ///< spec.trainer
  NodeCarry carry;                                    ///< for the override or the runtime
  std::vector<PendingNote> pending;

  /// A note whose text does not depend on the runtime.
  void note(Kind kind, std::string field, std::string text);
  /// A field only a TrainingRuntime holds: "runtime <name>, <where>"; it makes the runtime needed.
  void note_runtime_only(Kind kind, std::string field, const std::string& where);
  /// A field the release's override holds ("<override> on <where>") when `overridable`, else only a
  /// runtime.
  void note_overridable(std::string field, const std::string& where, bool overridable);
  [[nodiscard]] std::string in_runtime(const std::string& where) const;
  /// Whether any field so far can go only into a TrainingRuntime.
  [[nodiscard]] bool needs_runtime() const;
};

/// spec.runPolicy and the replica's restartPolicy (`replica` at `path`): suspend and, from v2.2,
/// activeDeadlineSeconds into `spec`; restarts, TTL and clean-up into `c.carry`; the rest notes.
void convert_run_policy(Converter& c, const nlohmann::json& replica, const std::string& path,
                        nlohmann::json& spec);

}  // namespace kpt::model::trainjob::detail
