#include "plugin/validate/validate_runner.hpp"

#include "plugin/validate/known_kinds.hpp"
#include "schema/builtin/builtin_schema.hpp"
#include "schema/carried/carried_schema.hpp"
#include "schema/carried/carried_trainer_schema.hpp"
#include "schema/release_fields.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <optional>
#include <thread>

namespace kpt::plugin {

namespace {

constexpr const char* k_pytorch_job = "PyTorchJob";

/// Notes true of every input of a kind: said only with -v, so a clean file prints one summary line.
bool is_verbose_note(const Diagnostic& d) {
  return d.severity == Severity::info && d.rule_id == "schema.cel-transition";
}

Diagnostic finding(const yaml::Document& doc, yaml::Position pos, std::string field, std::string rule,
                   std::string message, std::string hint) {
  return Diagnostic{Severity::error,    Location{doc.file, pos.line, pos.col},
                    std::move(field),   std::move(rule),
                    std::move(message), std::move(hint)};
}

yaml::Position value_pos(const yaml::Node& map, std::string_view key, yaml::Position fallback) {
  const yaml::Node* v = map.find(key);
  return v != nullptr && v->pos.line != 0 ? v->pos : fallback;
}

/// The set that serves `kind`: the CRD's (or carried PyTorchJob) schemas first, then the fallback.
const schema::SchemaSet* schemas_for(const ValidateSettings& s, std::string_view kind) {
  for (const schema::SchemaSet* set : {s.schemas, s.carried_schemas, s.fallback_schemas, s.builtin_schemas}) {
    if (set != nullptr && !set->api_versions(kind).empty()) return set;
  }
  return nullptr;
}

/// The kinds the run's schemas serve in `group`, for a typo's suggestion.
std::vector<std::string> served_kinds(const ValidateSettings& s, std::string_view group) {
  std::vector<std::string> out;
  for (const schema::SchemaSet* set : {s.schemas, s.carried_schemas, s.fallback_schemas, s.builtin_schemas}) {
    if (set == nullptr) continue;
    auto kinds = set->kinds_in_group(group);
    out.insert(out.end(), kinds.begin(), kinds.end());
  }
  return out;
}

DocumentReport validate_document(const yaml::Document& doc, const ValidateSettings& s) {
  DocumentReport out;
  out.index = doc.index;
  out.line = doc.start.line;
  const auto& root = doc.root;
  const yaml::Node* kind = root.find("kind");
  const yaml::Node* api_version = root.find("apiVersion");
  if (const auto* name = root.at_path({"metadata", "name"}); name != nullptr && name->is_scalar())
    out.name = name->text;
  if (const auto* ns = root.at_path({"metadata", "namespace"}); ns != nullptr && ns->is_scalar())
    out.name_space = ns->text;
  if (!root.is_map() || kind == nullptr || !kind->is_string() || api_version == nullptr ||
      !api_version->is_string()) {
    const bool no_version = api_version == nullptr || !api_version->is_string();
    const bool no_kind = kind == nullptr || !kind->is_string();
    const std::string missing =
        no_version && no_kind ? "'apiVersion' or 'kind'" : (no_kind ? "'kind'" : "'apiVersion'");
    out.findings.push_back(finding(
        doc, root.pos.line != 0 ? root.pos : doc.start, "", "manifest.type", "document has no " + missing,
        "a PyTorchJob starts with 'apiVersion: kubeflow.org/v1' and 'kind: PyTorchJob'"));
    return out;
  }
  out.kind = kind->text;
  const schema::SchemaSet* schemas = schemas_for(s, kind->text);
  if (schemas == nullptr) {
    auto verdict =
        judge_unserved_kind(api_version->text, kind->text, served_kinds(s, group_of(api_version->text)));
    if (verdict.typo) {
      out.findings.push_back(finding(doc, value_pos(root, "kind", doc.start), "kind", "manifest.unknown-kind",
                                     std::move(verdict.message),
                                     "kinds of " + std::string(group_of(api_version->text)) + ": " +
                                         util::join(kinds_of_group(group_of(api_version->text)), ", ")));
      return out;
    }
    out.skipped = true;
    out.skip_reason = std::move(verdict.message);
    return out;
  }
  const auto served = schemas->api_versions(kind->text);
  const schema::StructuralSchema* structural = schemas->find(api_version->text, kind->text);
  if (structural == nullptr) {
    out.findings.push_back(
        finding(doc, value_pos(root, "apiVersion", doc.start), "apiVersion", "schema.api-version",
                "apiVersion " + util::quote(api_version->text) + " of kind " + util::quote(kind->text) +
                    " is not served by " + schemas->origin() + " (served: " + util::join(served, ", ") + ")",
                "use apiVersion: " + served.front()));
    return out;
  }
  schema::StructuralOptions sopts;
  sopts.unknown_fields_are_errors = s.rules.strict;
  auto found = schema::validate_structure(doc, *structural, sopts);
  if (!s.verbose) std::erase_if(found, is_verbose_note);
  Diagnostics release_fields;
  Diagnostics rules;
  if (kind->text == k_pytorch_job) {
    release_fields = schema::check_release_fields(doc, s.rules.release);
    rules = schema::rules::check_rules(doc, s.rules);
  } else if (schema::rules::is_trainer_kind(kind->text)) {
    rules = schema::rules::check_trainer_rules(doc, s.trainer);
  }
  out.findings =
      schema::rules::combine_findings(std::move(found), std::move(release_fields), std::move(rules), s.rules);
  return out;
}

}  // namespace

ValidateSettings default_validate_settings() {
  ValidateSettings settings;
  settings.schemas = &schema::carried_schema();
  settings.carried_schemas = &schema::carried_schema();
  settings.fallback_schemas = &schema::carried_trainer_schema(model::trainjob::k_newest_trainer_release);
  settings.builtin_schemas = &schema::builtin_schemas();
  return settings;
}

std::vector<yaml::Document> expand_lists(std::vector<yaml::Document> documents) {
  std::vector<yaml::Document> out;
  out.reserve(documents.size());
  for (auto& doc : documents) {
    const yaml::Node* kind = doc.root.find("kind");
    const yaml::Node* items = doc.root.find("items");
    if (kind == nullptr || !kind->is_string() || !util::ends_with(kind->text, "List") || items == nullptr ||
        !items->is_seq()) {
      out.push_back(std::move(doc));
      continue;
    }
    for (const auto& item : items->items)
      out.push_back(yaml::Document{doc.file, 0, item.pos, item, doc.source});
  }
  for (std::size_t i = 0; i < out.size(); ++i) out[i].index = i;
  return out;
}

namespace {

/// A file's documents (lists expanded) and the reader's findings about it.
struct ParsedInput {
  Diagnostics findings;
  std::vector<yaml::Document> documents;
};

ParsedInput parse_input(const yaml::InputFile& input, const ValidateSettings& settings) {
  auto read = yaml::read_manifests(input, settings.limits);
  return ParsedInput{std::move(read.findings), expand_lists(std::move(read.documents))};
}

FileReport validate_parsed(const yaml::InputFile& input, ParsedInput read, const ValidateSettings& settings) {
  FileReport out;
  out.name = input.name;
  out.source = input.text;
  out.file_findings = std::move(read.findings);
  const auto& documents = read.documents;
  out.documents.reserve(documents.size());
  ValidateSettings own = settings;
  model::trainjob::AvailableRuntimes runtimes;
  if (settings.trainer.runtimes == nullptr) {  // called for this file alone: its own runtimes
    for (const auto& doc : documents) schema::rules::collect_runtime(doc, runtimes);
    own.trainer.runtimes = &runtimes;
    own.trainer.runtimes_include_carried = false;
  }
  for (const auto& doc : documents) out.documents.push_back(validate_document(doc, own));
  if (out.documents.empty() && out.file_findings.empty()) {
    out.file_findings.push_back(Diagnostic{Severity::warning, Location{input.name, 0, 0}, "", "input.empty",
                                           "holds no documents: nothing to validate", ""});
  }
  return out;
}

/// Whether an input may hold a runtime that the TrainJobs of other inputs name.
bool mentions_runtime(const yaml::InputFile& input) {
  return input.text != nullptr && input.text->find("TrainingRuntime") != std::string::npos;
}

/// Calls `work(i)` for every i below `count`, `workers` at a time, each worker taking the next index.
template <typename Work>
void for_each_index(std::size_t count, unsigned workers, const Work& work) {
  if (workers <= 1) {
    for (std::size_t i = 0; i < count; ++i) work(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (unsigned w = 0; w < workers; ++w) {
    threads.emplace_back([&] {
      for (std::size_t i = next++; i < count; i = next++) work(i);
    });
  }
  for (auto& t : threads) t.join();
}

}  // namespace

FileReport validate_file(const yaml::InputFile& input, const ValidateSettings& settings) {
  return validate_parsed(input, parse_input(input, settings), settings);
}

/// Whether any input may hold a TrainJob, whose rules look runtimes up.
bool mentions_trainjob(const std::vector<yaml::InputFile>& inputs) {
  return std::any_of(inputs.begin(), inputs.end(), [](const yaml::InputFile& input) {
    return input.text != nullptr && input.text->find("TrainJob") != std::string::npos;
  });
}

Report validate_inputs(const std::vector<yaml::InputFile>& inputs, const ValidateSettings& given) {
  const unsigned workers = std::max(1u, std::min<unsigned>(given.jobs, static_cast<unsigned>(inputs.size())));
  // The inputs that may hold runtimes are read first (their runtimes serve every TrainJob of the run)
  // and their documents kept for validation: read twice, they were a seventh of a TrainJob run's time.
  std::vector<std::size_t> runtime_inputs;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (mentions_runtime(inputs[i])) runtime_inputs.push_back(i);
  }
  std::vector<std::optional<ParsedInput>> read(inputs.size());
  std::vector<std::exception_ptr> failed(runtime_inputs.size());
  for_each_index(runtime_inputs.size(), workers, [&](std::size_t k) {
    try {
      read[runtime_inputs[k]] = parse_input(inputs[runtime_inputs[k]], given);
    } catch (...) {
      failed[k] = std::current_exception();
    }
  });
  for (const auto& e : failed) {  // the first in input order, as a serial read would have thrown it
    if (e) std::rethrow_exception(e);
  }
  model::trainjob::AvailableRuntimes runtimes;
  if (given.trainer.runtimes != nullptr) runtimes = *given.trainer.runtimes;
  for (const auto& file : read) {
    if (!file) continue;
    for (const auto& doc : file->documents) schema::rules::collect_runtime(doc, runtimes);
  }
  ValidateSettings settings = given;
  if (mentions_trainjob(inputs)) {
    // The shipped catalog once for the run: rebuilt per TrainJob it was a third of the run's time.
    runtimes = model::trainjob::with_carried_runtimes(std::move(runtimes), given.trainer.release);
    settings.trainer.runtimes_include_carried = true;
  }
  settings.trainer.runtimes = &runtimes;
  Report report;
  report.files.resize(inputs.size());
  // Results land in their input slot, so the order is fixed.
  const auto validate_one = [&](std::size_t i) {
    report.files[i] = read[i] ? validate_parsed(inputs[i], std::move(*read[i]), settings)
                              : validate_file(inputs[i], settings);
  };
  if (workers <= 1) {
    for (std::size_t i = 0; i < inputs.size(); ++i) validate_one(i);
    return report;
  }
  for_each_index(inputs.size(), workers, [&](std::size_t i) {
    try {
      validate_one(i);
    } catch (const std::exception& e) {  // a broken invariant: report it on its file, keep going
      report.files[i].name = inputs[i].name;
      report.files[i].file_findings.push_back(
          Diagnostic{Severity::error, Location{inputs[i].name, 0, 0}, "", "internal",
                     std::string("internal error while validating: ") + e.what(), ""});
    }
  });
  return report;
}

}  // namespace kpt::plugin
