// Our structural validator against valijson on the same schemas: generated schemas with values
// that satisfy them and mutations that may not, and the carried PyTorchJob schema with every job
// fixture and mutations of them. The verdicts (valid or not) must agree; where a Kubernetes rule
// valijson does not know decides, the disagreement is classified by that rule (README.md here).
#include "schema/carried/carried_schema.hpp"
#include "schema/structural_schema.hpp"
#include "tests/differential/mutate.hpp"
#include "tests/differential/schema_gen.hpp"
#include "tests/differential/valijson_schema.hpp"
#include "yaml/manifest_reader.hpp"
#include "yaml/node_json.hpp"

#include <gtest/gtest.h>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include <algorithm>
#include <iostream>
#include <map>
#include <set>

namespace kpt::differential {
namespace {

using json = nlohmann::json;

json crd_for(const json& spec_schema) {
  return {{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "CustomResourceDefinition"},
          {"metadata", {{"name", "things.x.io"}}},
          {"spec",
           {{"group", "x.io"},
            {"scope", "Namespaced"},
            {"names", {{"kind", "Thing"}, {"plural", "things"}}},
            {"versions",
             {{{"name", "v1"},
               {"served", true},
               {"storage", true},
               {"schema",
                {{"openAPIV3Schema",
                  {{"type", "object"},
                   {"properties",
                    {{"apiVersion", {{"type", "string"}}},
                     {"kind", {{"type", "string"}}},
                     {"metadata", {{"type", "object"}}},
                     {"spec", spec_schema}}}}}}}}}}}}};
}

/// valijson's verdict on `value` under a draft-4 schema.
class Valijson {
 public:
  explicit Valijson(const json& draft4) : m_source(draft4) {
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft4);
    valijson::adapters::NlohmannJsonAdapter adapter(m_source);
    parser.populateSchema(adapter, m_schema);
  }
  /// Empty when valid, else the first error as "path: description"; `at` gets its path.
  std::string check(const json& value, std::vector<std::string>* at = nullptr) const {
    valijson::Validator validator;
    valijson::ValidationResults results;
    valijson::adapters::NlohmannJsonAdapter target(value);
    if (validator.validate(m_schema, target, &results)) return "";
    valijson::ValidationResults::Error e;
    std::string path;
    if (results.popError(e)) {
      for (const auto& c : e.context) path += c;
      if (at != nullptr) *at = e.context;
      return path + ": " + e.description;
    }
    return "invalid";
  }

 private:
  json m_source;
  valijson::Schema m_schema;
};

/// The schema node a finding's field path ("spec.a[0].b") leads to, or null.
const json* schema_at(const json& root, const std::string& path) {
  const json* s = &root;
  std::size_t i = 0;
  while (i < path.size() && s != nullptr) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    if (path[i] == '[') {
      i = path.find(']', i);
      i = i == std::string::npos ? path.size() : i + 1;
      s = s->contains("items") ? &(*s)["items"] : nullptr;
      continue;
    }
    const auto end = path.find_first_of(".[", i);
    const std::string key = path.substr(i, end == std::string::npos ? std::string::npos : end - i);
    i = end == std::string::npos ? path.size() : end;
    if (s->contains("properties") && (*s)["properties"].contains(key)) {
      s = &(*s)["properties"][key];
    } else if (s->contains("additionalProperties") && (*s)["additionalProperties"].is_object()) {
      s = &(*s)["additionalProperties"];
    } else {
      s = nullptr;
    }
  }
  return s;
}

/// True when the schema node `s` sets the boolean extension `key`.
bool has_flag(const json* s, const char* key) {
  if (s == nullptr || !s->is_object()) return false;
  const auto it = s->find(key);
  return it != s->end() && it->is_boolean() && it->get<bool>();
}

/// Why our verdict alone is "invalid": the Kubernetes rule behind our error findings.
std::string kubernetes_rule(const Diagnostics& errors, const json& root_schema) {
  std::set<std::string> rules;
  for (const auto& d : errors) {
    const json* at = schema_at(root_schema, d.field_path);
    const json* parent = schema_at(root_schema, d.field_path.substr(0, d.field_path.find_last_of(".[")));
    if (d.rule_id == "schema.duplicate-key")
      rules.insert("list-map keys are unique");  // the finding names the item path
    else if (has_flag(parent, "x-kubernetes-embedded-resource") ||
             has_flag(at, "x-kubernetes-embedded-resource"))
      rules.insert("embedded resources have apiVersion, kind and metadata");
    else if (d.field_path == "apiVersion" || d.field_path == "kind")
      rules.insert("objects have apiVersion and kind");
    else if (d.field_path.rfind("metadata", 0) == 0 || d.field_path.find(".metadata") != std::string::npos)
      rules.insert("ObjectMeta is validated (names, labels)");
    else
      rules.insert("none: " + d.rule_id + " at " + d.field_path + ": " + d.message);
  }
  std::string out;
  for (const auto& r : rules) out += (out.empty() ? "" : "; ") + r;
  return out;
}

struct Tally {
  int agreed = 0;
  std::map<std::string, int> classified;
  std::map<std::string, std::string> example;
  void note(const std::string& why, const std::string& what) {
    ++classified[why];
    example.emplace(why, what);
  }
};

const std::set<std::string>& documented() {
  static const std::set<std::string> rules = {
      "list-map keys are unique",
      "embedded resources have apiVersion, kind and metadata",
      "ObjectMeta is validated (names, labels)",
      "nulls of fields that are not nullable are dropped",
      "objects have apiVersion and kind",
  };
  return rules;
}

Diagnostics errors_of(const Diagnostics& all) {
  Diagnostics out;
  for (const auto& d : all)
    if (d.severity == Severity::error) out.push_back(d);
  return out;
}

void compare(const schema::StructuralSchema& ours, const Valijson& theirs, const json& root_schema,
             const json& object, const json& checked_by_valijson, Tally& t) {
  yaml::Document doc;
  doc.file = "doc.yaml";
  doc.root = yaml::from_json(object);
  const auto findings = schema::validate_structure(doc, ours, {});
  const auto errors = errors_of(findings);
  // The API server drops nulls of fields that are not nullable before it validates
  // (k8s.io/apiextensions-apiserver pkg/apiserver/schema/defaulting/prunenulls.go); our validator
  // does too and warns schema.null. valijson has no such step.
  const bool pruned_null = std::any_of(findings.begin(), findings.end(),
                                       [](const Diagnostic& d) { return d.rule_id == "schema.null"; });
  const auto verdict = theirs.check(checked_by_valijson);
  if (errors.empty() == verdict.empty()) {
    ++t.agreed;
    return;
  }
  std::string schema_text = root_schema.dump();
  if (schema_text.size() > 2000) schema_text = schema_text.substr(0, 2000) + "...";
  const std::string what =
      "schema: " + schema_text + "\nobject: " + object.dump() +
      "\nours: " + (errors.empty() ? "valid" : errors.front().field_path + ": " + errors.front().message) +
      "\nvalijson: " + (verdict.empty() ? "valid" : verdict);
  if (!errors.empty()) {
    for (const auto& rule : {kubernetes_rule(errors, root_schema)}) {
      bool all_documented = rule.find("none: ") == std::string::npos;
      t.note(all_documented ? rule : "unexplained: ours invalid, valijson valid", what);
    }
  } else if (pruned_null) {
    t.note("nulls of fields that are not nullable are dropped", what);
  } else {
    t.note("unexplained: valijson invalid, ours valid", what);
  }
}

void expect_documented(const Tally& t, const char* what) {
  std::cout << "[differential] " << what << ": " << t.agreed << " verdicts agree\n";
  for (const auto& [why, n] : t.classified) {
    std::cout << "[differential] " << n << " x " << why << "\n";
    EXPECT_TRUE(documented().count(why) != 0) << why << ", e.g.\n" << t.example.at(why);
  }
}

TEST(StructuralVsValijson, GeneratedSchemasAndValuesGetTheSameVerdicts) {
  const auto seed = run_seed();
  std::cout << "[differential] seed " << seed << " (KPT_DIFF_SEED replays it)\n";
  std::mt19937_64 rng(seed);
  Tally t;
  int schemas = 0;
  const int rounds = mutations_per_input(25);
  for (int i = 0; i < 12 * rounds; ++i) {
    const json spec_schema = random_schema(rng);
    const json crd = crd_for(spec_schema);
    yaml::Document crd_doc;
    crd_doc.root = yaml::from_json(crd);
    auto set = schema::SchemaSet::from_crd(crd_doc);
    ASSERT_TRUE(set.has_value()) << set.error().message << "\n" << spec_schema.dump();
    const auto* ours = set->find("x.io/v1", "Thing");
    ASSERT_NE(ours, nullptr);
    ++schemas;
    const json root_schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    const Valijson theirs(to_draft4(spec_schema));
    for (int j = 0; j < 8; ++j) {
      json spec = valid_value(spec_schema, rng);
      if (j > 0) spec = mutated_value(spec, rng);
      const json object = {
          {"apiVersion", "x.io/v1"}, {"kind", "Thing"}, {"metadata", {{"name", "t"}}}, {"spec", spec}};
      compare(*ours, theirs, root_schema, object, spec, t);
    }
  }
  std::cout << "[differential] " << schemas << " generated schemas\n";
  expect_documented(t, "generated schemas");
  EXPECT_GT(t.agreed, 40 * rounds);
}

TEST(StructuralVsValijson, TheCarriedPyTorchJobSchemaOnEveryJobFixtureAndMutations) {
  const json openapi = json::parse(schema::carried_openapi_json());
  const auto* ours = schema::carried_schema().find("kubeflow.org/v1", "PyTorchJob");
  ASSERT_NE(ours, nullptr);
  json draft4 = to_draft4(openapi);
  draft4["properties"].erase("metadata");  // ObjectMeta is the API server's, checked apart
  const Valijson theirs(draft4);
  std::mt19937_64 rng(run_seed());
  Tally t;
  int jobs = 0;
  for (const auto& path : fixtures_under(std::filesystem::path(KPT_SOURCE_DIR) / "testdata", 64 * 1024)) {
    const auto read =
        yaml::read_manifests(path.string(), std::make_shared<const std::string>(read_text(path)));
    for (const auto& doc : read.documents) {
      const auto* kind = doc.root.find("kind");
      if (kind == nullptr || kind->text != "PyTorchJob") continue;
      ++jobs;
      const json job = yaml::to_json(doc.root);
      for (int i = 0; i < 1 + mutations_per_input(25); ++i) {
        json object = i == 0 ? job : mutated_value(job, rng);
        if (!object.is_object()) continue;
        object["metadata"] = job.value("metadata", json::object());  // keep ObjectMeta valid
        json rest = object;
        rest.erase("metadata");
        compare(*ours, theirs, openapi, object, rest, t);
      }
    }
  }
  std::cout << "[differential] " << jobs << " PyTorchJob fixtures\n";
  expect_documented(t, "carried PyTorchJob schema");
  EXPECT_GT(jobs, 5);
}

}  // namespace
}  // namespace kpt::differential
