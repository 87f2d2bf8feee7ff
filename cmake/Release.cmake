# What a release needs from the build: the version the binary says (git's, recorded at build time).

# The git version and commit, written at every build (not at configure) so that a new commit shows
# in `version` without a re-configure. The file is rewritten only when its text changes: an
# unchanged commit rebuilds nothing. A tree without git history records `archive` instead.
set(KPT_BUILD_INFO_SOURCE ${PROJECT_BINARY_DIR}/generated/build_info.cpp)
add_custom_target(kpt_build_info_source
  COMMAND ${CMAKE_COMMAND} -D SOURCE_DIR=${PROJECT_SOURCE_DIR} -D OUTPUT=${KPT_BUILD_INFO_SOURCE}
          -D PROJECT_VERSION=${PROJECT_VERSION} -P ${CMAKE_CURRENT_LIST_DIR}/BuildInfo.cmake
  BYPRODUCTS ${KPT_BUILD_INFO_SOURCE}
  COMMENT "Recording the git version of the build"
  VERBATIM)
add_library(kpt_build_info STATIC ${KPT_BUILD_INFO_SOURCE})
target_link_libraries(kpt_build_info PRIVATE kpt_options kpt_warnings nlohmann_json::nlohmann_json)
add_dependencies(kpt_build_info kpt_build_info_source)
