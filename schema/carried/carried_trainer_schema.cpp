#include "schema/carried/carried_trainer_schema.hpp"

#include "model/trainjob/constants.hpp"

#include <stdexcept>
#include <string>

namespace kpt::schema {

// Defined in the build-generated carried_trainer_<release>_data.cpp (kpt_schema_compile --crd).
std::string_view k_carried_trainer_v2_0_0();
std::string_view k_carried_trainer_v2_1_0();
std::string_view k_carried_trainer_v2_2_0();
std::string_view k_carried_trainer_v2_3_0();
// Defined in the build-generated carried_trainer_crds_data.cpp (embed_text.py).
std::string_view carried_trainer_crds_text();

namespace {

SchemaSet load(std::string_view bytes, const char* release) {
  auto set = SchemaSet::deserialize(bytes);
  if (!set)
    throw std::logic_error(std::string("carried Trainer ") + release + " schema: " + set.error().message);
  return std::move(set).value();
}

}  // namespace

const SchemaSet& carried_trainer_schema(model::trainjob::TrainerRelease release) {
  // Function-local statics: each set is deserialized once, on first use, thread-safely.
  if (release.at_least(3)) {
    static const SchemaSet v2_3 = load(k_carried_trainer_v2_3_0(), "v2.3.0");
    return v2_3;
  }
  if (release.at_least(2)) {
    static const SchemaSet v2_2 = load(k_carried_trainer_v2_2_0(), "v2.2.0");
    return v2_2;
  }
  if (release.at_least(1)) {
    static const SchemaSet v2_1 = load(k_carried_trainer_v2_1_0(), "v2.1.0");
    return v2_1;
  }
  static const SchemaSet v2_0 = load(k_carried_trainer_v2_0_0(), "v2.0.0");
  return v2_0;
}

std::string_view carried_trainer_crds_yaml() { return carried_trainer_crds_text(); }

bool is_trainer_kind(std::string_view kind) {
  using namespace model::trainjob;
  return kind == k_kind_trainjob || kind == k_kind_training_runtime ||
         kind == k_kind_cluster_training_runtime;
}

}  // namespace kpt::schema
