// Built when the project's structural validator is not linked into this build (see CMakeLists.txt).
#include "apiserver/validator.hpp"

namespace kpt::apiserver {

std::shared_ptr<const ObjectValidator> make_default_validator(const nlohmann::json& open_api_v3_schema,
                                                              const std::string& /*group*/,
                                                              const std::string& /*version*/,
                                                              const std::string& /*kind*/) {
  return make_basic_validator(open_api_v3_schema);
}

}  // namespace kpt::apiserver
