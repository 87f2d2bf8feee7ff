# What a release needs from the build: the version the binary says (git's, recorded at build time)
# and, with KPT_PORTABLE, a link for the release archive (scripts/release.sh). Neither changes how a
# source file compiles, so a portable build hits the same ccache entries as `scripts/dev.sh main`.

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

# KPT_PORTABLE: the libraries that no other library of the release bundle loads are linked from
# Debian's static archives (libyaml, SQLite, protobuf). The rest stays shared and goes into the
# archive with glibc's loader: libcurl and libcpp-httplib exist only as shared objects, and they
# load libssl, libcrypto, libz and libstdc++ themselves, so a static copy of those in the binary
# would be a second copy in the same process. docs/install.md tells the whole choice.
option(KPT_PORTABLE "Link kubectl-pytorch for the release archive (scripts/release.sh)" OFF)
# KPT_STATIC_DEPS (on by default): the same static archives, plus RE2's, in every build. Each shared
# object costs the process start its loading and its symbol lookups (libprotobuf alone had 3,500 of
# the 15,300 that `kubectl-pytorch version` resolved); BENCHMARKS.md's validate section measures it.
option(KPT_STATIC_DEPS "Link libyaml, SQLite, protobuf and RE2 from Debian's static archives" ON)
if(KPT_PORTABLE OR KPT_STATIC_DEPS)
  # kpt_static_archive(TARGET ARCHIVE DEBIAN_PACKAGE [EXTRA_LINK_LIBRARIES...]): TARGET (an imported
  # library) links ARCHIVE instead of its shared object, plus what the archive needs.
  function(kpt_static_archive target archive deb)
    find_library(KPT_STATIC_${archive} NAMES ${archive} NO_CACHE)
    if(NOT KPT_STATIC_${archive})
      message(FATAL_ERROR "missing ${archive} (KPT_STATIC_DEPS or KPT_PORTABLE): run\n  apt-get install -y ${deb}\nor configure with -DKPT_STATIC_DEPS=OFF")
    endif()
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "INTERFACE_LIBRARY")  # pkg-config's targets name the library in their link list
      set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${KPT_STATIC_${archive}};${ARGN}")
    else()
      foreach(property IMPORTED_LOCATION IMPORTED_LOCATION_RELEASE IMPORTED_LOCATION_DEBUG)
        get_target_property(location ${target} ${property})
        if(location)
          set_target_properties(${target} PROPERTIES ${property} ${KPT_STATIC_${archive}})
        endif()
      endforeach()
      set_property(TARGET ${target} APPEND PROPERTY INTERFACE_LINK_LIBRARIES ${ARGN})
    endif()
    set_property(GLOBAL APPEND PROPERTY KPT_STATIC_ARCHIVES ${KPT_STATIC_${archive}})
  endfunction()

  kpt_static_archive(PkgConfig::LIBYAML libyaml.a libyaml-dev)
  kpt_static_archive(SQLite::SQLite3 libsqlite3.a libsqlite3-dev m Threads::Threads ${CMAKE_DL_LIBS})
  kpt_static_archive(protobuf::libprotobuf libprotobuf.a libprotobuf-dev ZLIB::ZLIB Threads::Threads)
  kpt_static_archive(PkgConfig::RE2 libre2.a libre2-dev Threads::Threads)
  # scripts/release.sh and scripts/controller_image.py trace each archive to its Debian package, whose
  # copyright goes into the release archive and the image as the shared libraries' do.
  get_property(archives GLOBAL PROPERTY KPT_STATIC_ARCHIVES)
  list(JOIN archives "\n" archives)
  file(WRITE ${PROJECT_BINARY_DIR}/static-libraries.txt "${archives}\n")
else()
  file(REMOVE ${PROJECT_BINARY_DIR}/static-libraries.txt)
endif()
