#pragma once

#include "plugin/validate/diagnostic_output.hpp"
#include "schema/rules/rules.hpp"
#include "schema/rules/trainer_rules.hpp"
#include "schema/structural_schema.hpp"
#include "yaml/input_files.hpp"
#include "yaml/manifest_reader.hpp"

#include <vector>

namespace kpt::plugin {

struct ValidateSettings {
  schema::rules::RuleOptions rules;
  yaml::ReadLimits limits;
  const schema::SchemaSet* schemas = nullptr;  ///< the CRD's or the carried schemas
  /// Kinds `schemas` does not serve are looked up here first: the carried PyTorchJob schema, so a --crd
  /// (or a cluster) without the PyTorchJob CRD never leaves PyTorchJobs unchecked.
  const schema::SchemaSet* carried_schemas = nullptr;
  /// Kinds `schemas` does not serve are looked up here (the carried Trainer v2 schemas of --trainer).
  const schema::SchemaSet* fallback_schemas = nullptr;
  /// The built-in kinds (ConfigMap, Service, Deployment, ...), checked strictly as the API server's
  /// field validation does; null leaves them unchecked.
  const schema::SchemaSet* builtin_schemas = nullptr;
  /// Notes true of every input (the oldSelf transition rules no create evaluates) are said only with -v.
  bool verbose = false;
  unsigned jobs = 1;  ///< files validated at once
  /// Trainer's webhook rules: the release, and the runtimes TrainJobs may name beyond the input's
  /// and the shipped ones (the cluster's); validate_inputs adds every runtime of the inputs.
  schema::rules::TrainerRuleOptions trainer;
};

/// The documents to validate: those read, with each List (`kind: List` or any `*List`, as
/// `kubectl get -o yaml` writes) replaced by its items, numbered in order.
std::vector<yaml::Document> expand_lists(std::vector<yaml::Document> documents);

/// What validate_inputs and run use unless told otherwise: the carried PyTorchJob schema, the carried
/// Trainer schemas of the newest release and the built-in kinds' schemas.
ValidateSettings default_validate_settings();

/// Reads one input and validates every document (Lists expanded): a kind no schema serves is an
/// error in a group we know (a typo) and else not checked, with the reason; every known kind goes through its
/// structural schema (CEL rules included); each PyTorchJob also through the release's field set, the
/// operator's rules and the lints, merged so nothing is said twice; each Trainer document through Trainer's
/// webhook rules, a TrainJob against the runtime it names (settings.trainer.runtimes, else this input's
/// runtimes, and the shipped ones).
FileReport validate_file(const yaml::InputFile& input, const ValidateSettings& settings);

/// validate_file over every input, `settings.jobs` at a time; the report keeps input order. A TrainJob
/// may name a runtime in any of the inputs.
Report validate_inputs(const std::vector<yaml::InputFile>& inputs, const ValidateSettings& settings);

}  // namespace kpt::plugin
