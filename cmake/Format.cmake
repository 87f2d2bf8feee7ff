# `format` rewrites, `check_format` checks (CI) every tracked C++ file with .clang-format. Only a
# developer's tool: without clang-format (a user's from-source build) the two targets are not made.
find_program(KPT_CLANG_FORMAT NAMES clang-format-14 clang-format)
if(KPT_CLANG_FORMAT)
  add_custom_target(format
    COMMAND ${PROJECT_SOURCE_DIR}/scripts/format.sh --fix ${KPT_CLANG_FORMAT}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} VERBATIM)
  add_custom_target(check_format
    COMMAND ${PROJECT_SOURCE_DIR}/scripts/format.sh --check ${KPT_CLANG_FORMAT}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} VERBATIM)
elseif(KPT_TESTS)
  message(FATAL_ERROR "missing clang-format (the format check): run\n  apt-get install -y clang-format")
endif()
