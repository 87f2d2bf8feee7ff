#pragma once

#include "util/diagnostic.hpp"
#include "util/expected.hpp"
#include "yaml/node.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kpt::schema {

struct StructuralSchema;  // a compiled OpenAPI v3 structural schema (structural_schema_impl.hpp)

/// The schemas of one or more custom resource kinds, compiled once and serializable
/// to a compact binary form, so a 0.6 MB CRD is not re-parsed on every run.
class SchemaSet {
 public:
  SchemaSet();
  ~SchemaSet();
  SchemaSet(SchemaSet&&) noexcept;
  SchemaSet& operator=(SchemaSet&&) noexcept;

  /// Compiles every served version of a CustomResourceDefinition document
  /// (apiextensions.k8s.io/v1). Errors name the CRD field that is wrong.
  static Expected<SchemaSet> from_crd(const yaml::Document& crd);
  /// Every served version of several CRDs in one set (a Trainer install: TrainJob, TrainingRuntime,
  /// ClusterTrainingRuntime). An error names the CRD it is in when there is more than one.
  static Expected<SchemaSet> from_crds(const std::vector<const yaml::Document*>& crds);
  /// Compiles a bare openAPIV3Schema for one group/version/kind.
  static Expected<SchemaSet> from_openapi(const yaml::Node& open_api_v3_schema, const std::string& group,
                                          const std::string& version, const std::string& kind);
  /// One bare openAPIV3Schema of a kind, for from_openapis.
  struct KindSchema {
    std::string group;  ///< empty for the core group
    std::string version;
    std::string kind;
    const yaml::Node* schema = nullptr;
  };
  /// Compiles several kinds' bare schemas into one set (the built-in kinds, core group included,
  /// which a CRD cannot name).
  static Expected<SchemaSet> from_openapis(const std::vector<KindSchema>& kinds);
  static Expected<SchemaSet> deserialize(std::string_view bytes);
  [[nodiscard]] std::string serialize() const;

  /// The schema for `apiVersion` ("kubeflow.org/v1") and kind, or nullptr.
  [[nodiscard]] const StructuralSchema* find(std::string_view api_version, std::string_view kind) const;
  /// "group/version" entries this set serves for `kind`, for "no schema for X; known: ..." messages.
  [[nodiscard]] std::vector<std::string> api_versions(std::string_view kind) const;
  /// The kinds this set serves in `group` ("" the core group), sorted, for "did you mean" hints.
  [[nodiscard]] std::vector<std::string> kinds_in_group(std::string_view group) const;
  /// Human description of where the schemas came from ("CRD file 'x.yaml'", "carried v1.9.4").
  [[nodiscard]] const std::string& origin() const;
  void set_origin(std::string origin);

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

struct StructuralOptions {
  bool unknown_fields_are_errors = true;  ///< kubectl --validate=strict; false: warnings
  bool is_create = true;                  ///< CEL rules with oldSelf do not apply to a create
  /// The document's `metadata` is checked against the schema's `metadata` property like any other
  /// field, and apiVersion and kind are not required: a built-in kind's schema has the whole
  /// ObjectMeta, whose names and labels the embedded API server checks itself.
  bool metadata_from_schema = false;
};

/// Validates a document against a compiled schema as the API server does on create.
/// Findings carry the document's file, the node's line:col and the field path.
Diagnostics validate_structure(const yaml::Document& doc, const StructuralSchema& schema,
                               const StructuralOptions& opts);

}  // namespace kpt::schema
