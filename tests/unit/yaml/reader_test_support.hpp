#pragma once

#include "yaml/manifest_reader.hpp"

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace kpt::yaml::testing {

inline ReadResult read_text(const std::string& text, const ReadLimits& limits = {}) {
  return read_manifests("job.yaml", std::make_shared<const std::string>(text), limits);
}

inline std::string fixture(const std::string& name) {
  std::ifstream in(std::string(KPT_SOURCE_DIR) + "/testdata/reader/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string describe(const Diagnostic& d) {
  return d.location.file + ":" + std::to_string(d.location.line) + ":" + std::to_string(d.location.col) +
         " [" + d.rule_id + "] " + d.field_path + ": " + d.message +
         (d.hint.empty() ? "" : " | hint: " + d.hint);
}

inline std::size_t count_nodes(const Node& root) {
  std::size_t n = 0;
  std::vector<const Node*> todo{&root};
  while (!todo.empty()) {
    const Node* cur = todo.back();
    todo.pop_back();
    ++n;
    n += cur->keys.size();
    for (const auto& item : cur->items) todo.push_back(&item);
  }
  return n;
}

}  // namespace kpt::yaml::testing
