#include "schema/schema_cache.hpp"
#include "schema/structural_schema.hpp"
#include "schema/structural_schema_impl.hpp"
#include "tests/unit/schema/structural_test_support.hpp"
#include "yaml/node_json.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace kpt::schema {
namespace {

using testing::fixture_path;
using testing::parse_one;
using testing::render;

std::string read_fixture() {
  std::ifstream in(fixture_path());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

SchemaSet compile_fixture() {
  const auto doc = parse_one(fixture_path(), read_fixture());
  auto set = SchemaSet::from_crd(doc);
  EXPECT_TRUE(set.has_value()) << (set ? "" : set.error().message);
  return std::move(set).value();
}

const char* const k_broken_job = R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: Bad_Name
spec:
  runPolicy:
    cleanPodPolicy: all
  pytorchReplicaSpecs:
    Worker:
      replica: 2
      template:
        spec:
          containers:
          - name: pytorch
            ports:
            - containerPort: "http"
            resources:
              limits:
                memory: 16GB
)";

TEST(SchemaCompile, EveryServedVersionOfTheCrdIsCompiledAndFoundByApiVersion) {
  const auto set = compile_fixture();
  EXPECT_NE(set.find("kubeflow.org/v1", "PyTorchJob"), nullptr);
  EXPECT_NE(set.find("kubeflow.org/v1beta1", "PyTorchJob"), nullptr);
  EXPECT_EQ(set.find("kubeflow.org/v1alpha1", "PyTorchJob"), nullptr);  // served: false
  EXPECT_EQ(set.find("kubeflow.org/v1", "TFJob"), nullptr);
  EXPECT_EQ(set.find("other.org/v1", "PyTorchJob"), nullptr);
  EXPECT_EQ(set.api_versions("PyTorchJob"),
            (std::vector<std::string>{"kubeflow.org/v1", "kubeflow.org/v1beta1"}));
  EXPECT_EQ(set.origin(), "CRD 'pytorchjobs.kubeflow.org' from '" + fixture_path() + "'");
}

TEST(SchemaCompile, CompiledNodesKeepTheKeywordsTheValidatorNeeds) {
  const auto set = compile_fixture();
  const StructuralSchema* root = set.find("kubeflow.org/v1", "PyTorchJob");
  ASSERT_NE(root, nullptr);
  const StructuralSchema* spec = root->property("spec");
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(spec->required, std::vector<std::string>{"pytorchReplicaSpecs"});
  const StructuralSchema* replica = spec->property("pytorchReplicaSpecs")->additional_properties;
  ASSERT_NE(replica, nullptr);
  const StructuralSchema* containers =
      replica->property("template")->property("spec")->property("containers");
  EXPECT_EQ(containers->list_type, ListType::map);
  EXPECT_EQ(containers->list_map_keys, std::vector<std::string>{"name"});
  const StructuralSchema* ports = containers->items->property("ports");
  EXPECT_EQ(ports->items->property("protocol")->default_value, (SchemaScalar{yaml::NodeKind::string, "TCP"}));
  const StructuralSchema* limit =
      containers->items->property("resources")->property("limits")->additional_properties;
  EXPECT_TRUE(limit->int_or_string);
  EXPECT_TRUE(is_quantity_pattern(limit->pattern));
  EXPECT_EQ(spec->property("runPolicy")->property("schedulingPolicy")->property("queue")->validations.size(),
            1u);
  EXPECT_EQ(spec->property("priority")->maximum, 10.0);
  EXPECT_TRUE(spec->property("priority")->exclusive_maximum);
}

TEST(SchemaCompile, ErrorsNameTheCrdFieldThatIsWrong) {
  struct Case {
    const char* name;
    const char* crd;
    const char* message;
  };
  const Case cases[] = {
      {"not a CRD", "kind: Pod\n", "not a CustomResourceDefinition: field 'kind' is 'Pod'"},
      {"v1beta1 CRD", "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\n",
       "CRD field 'apiVersion': only 'apiextensions.k8s.io/v1' is supported, got "
       "'apiextensions.k8s.io/v1beta1'"},
      {"no group", "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec: {}\n",
       "CRD field 'spec.group': missing"},
      {"no versions",
       "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: g\n  names: "
       "{kind: K}\n",
       "CRD field 'spec.versions': missing or empty"},
      {"bad type",
       "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: g\n  names: "
       "{kind: K}\n"
       "  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n        type: object\n        "
       "properties:\n"
       "          spec: {type: strin}\n",
       "CRD field 'spec.versions[0].schema.openAPIV3Schema.properties.spec.type': unknown type 'strin'"},
      {"bad list type",
       "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: g\n  names: "
       "{kind: K}\n"
       "  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n        type: array\n"
       "        x-kubernetes-list-type: bag\n",
       "CRD field 'spec.versions[0].schema.openAPIV3Schema.x-kubernetes-list-type': unknown list type 'bag' "
       "(atomic, "
       "set or map)"},
      {"no schema",
       "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: g\n  names: "
       "{kind: K}\n"
       "  versions:\n  - name: v1\n    served: true\n",
       "CRD field 'spec.versions[0].schema.openAPIV3Schema': missing for version 'v1'"},
      {"nothing served",
       "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: g\n  names: "
       "{kind: K}\n"
       "  versions:\n  - name: v1\n    served: false\n",
       "CRD field 'spec.versions': no version is served"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto set = SchemaSet::from_crd(parse_one("crd.yaml", c.crd));
    ASSERT_FALSE(set.has_value());
    EXPECT_EQ(set.error().message, c.message);
  }
}

TEST(SchemaCompile, ABareOpenApiSchemaIsServedForItsGroupVersionKind) {
  const auto json = nlohmann::json::parse(R"({"type":"object","properties":{"spec":{"type":"object"}}})");
  auto set = SchemaSet::from_openapi(yaml::from_json(json), "kubeflow.org", "v1", "PyTorchJob");
  ASSERT_TRUE(set.has_value());
  EXPECT_NE(set->find("kubeflow.org/v1", "PyTorchJob"), nullptr);
}

TEST(SchemaBinary, ARoundTripGivesTheSameBytesAndTheSameFindings) {
  const auto set = compile_fixture();
  const std::string bytes = set.serialize();
  EXPECT_EQ(bytes.substr(0, 4), "KPTS");
  auto loaded = SchemaSet::deserialize(bytes);
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  EXPECT_EQ(loaded->serialize(), bytes);
  EXPECT_EQ(loaded->origin(), set.origin());
  EXPECT_EQ(loaded->api_versions("PyTorchJob"), set.api_versions("PyTorchJob"));
  const auto doc = parse_one("job.yaml", k_broken_job);
  const auto before = render(validate_structure(doc, *set.find("kubeflow.org/v1", "PyTorchJob"), {}));
  const auto after = render(validate_structure(doc, *loaded->find("kubeflow.org/v1", "PyTorchJob"), {}));
  EXPECT_EQ(before.size(), 5u);
  EXPECT_EQ(after, before);
}

TEST(SchemaBinary, DamagedBytesAreAnErrorNeverACrash) {
  const std::string bytes = compile_fixture().serialize();
  EXPECT_EQ(SchemaSet::deserialize("").error().message, "compiled schema is damaged: no 'KPTS' header");
  std::string other_version = bytes;
  other_version[4] = 9;
  EXPECT_EQ(SchemaSet::deserialize(other_version).error().message,
            "compiled schema is damaged: format version 9, this build reads 2");
  for (std::size_t n = 4; n < bytes.size(); n += 7) {
    SCOPED_TRACE(n);
    EXPECT_FALSE(SchemaSet::deserialize(bytes.substr(0, n)).has_value());
  }
  EXPECT_EQ(SchemaSet::deserialize(bytes + "x").error().message,
            "compiled schema is damaged: trailing bytes");
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kpt-structural-XXXXXX").string();
    m_path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    if (!::testing::Test::HasFailure()) {
      std::error_code ec;
      std::filesystem::remove_all(m_path, ec);
    } else {
      std::cerr << "test files kept in " << m_path << "\n";
    }
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
};

TEST(SchemaCache, TheSecondLoadComesFromTheCacheAndADamagedEntryIsRewritten) {
  TempDir dir;
  SchemaCache cache(dir.path() / "cache");
  const std::string text = read_fixture();
  int compiles = 0;
  auto compile = [&]() -> Expected<SchemaSet> {
    ++compiles;
    return SchemaSet::from_crd(parse_one(fixture_path(), text));
  };
  ASSERT_TRUE(cache.load_or_compile(text, compile).has_value());
  EXPECT_FALSE(cache.last_was_hit());
  EXPECT_EQ(cache.last_store_error(), "");
  auto again = cache.load_or_compile(text, compile);
  ASSERT_TRUE(again.has_value());
  EXPECT_TRUE(cache.last_was_hit());
  EXPECT_EQ(compiles, 1);
  EXPECT_NE(again->find("kubeflow.org/v1", "PyTorchJob"), nullptr);

  std::ofstream(cache.entry_path(text), std::ios::trunc) << "KPTS garbage";
  ASSERT_TRUE(cache.load_or_compile(text, compile).has_value());
  EXPECT_FALSE(cache.last_was_hit());
  EXPECT_EQ(compiles, 2);
  ASSERT_TRUE(cache.load_or_compile(text, compile).has_value());
  EXPECT_TRUE(cache.last_was_hit());

  const std::string edited = text + "# edited\n";
  EXPECT_NE(cache.entry_path(edited), cache.entry_path(text));
}

TEST(SchemaCache, KeysAreFnv1aOfTheText) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
}

}  // namespace
}  // namespace kpt::schema
