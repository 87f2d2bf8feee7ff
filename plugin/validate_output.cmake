# The validate command's helpers: finding output (text, JSON, JUnit) and the parallel file runner.
target_sources(kpt_plugin PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/diagnostic_output.cpp
  ${CMAKE_CURRENT_LIST_DIR}/diagnostic_junit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/diagnostic_json.cpp
)
target_sources(kpt_plugin PRIVATE ${CMAKE_CURRENT_LIST_DIR}/validate_runner.cpp)
find_package(Threads REQUIRED)
target_link_libraries(kpt_plugin PRIVATE Threads::Threads)
