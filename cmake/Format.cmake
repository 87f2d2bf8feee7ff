# `format` rewrites, `check_format` checks (CI) every tracked C++ file with .clang-format.
find_program(KPT_CLANG_FORMAT NAMES clang-format-14 clang-format REQUIRED)
add_custom_target(format
  COMMAND ${PROJECT_SOURCE_DIR}/scripts/format.sh --fix ${KPT_CLANG_FORMAT}
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} VERBATIM)
add_custom_target(check_format
  COMMAND ${PROJECT_SOURCE_DIR}/scripts/format.sh --check ${KPT_CLANG_FORMAT}
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} VERBATIM)
