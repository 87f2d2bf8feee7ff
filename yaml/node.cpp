#include "yaml/node.hpp"

namespace kpt::yaml {

const char* to_string(NodeKind kind) {
  switch (kind) {
    case NodeKind::null:
      return "null";
    case NodeKind::boolean:
      return "boolean";
    case NodeKind::integer:
      return "integer";
    case NodeKind::number:
      return "number";
    case NodeKind::string:
      return "string";
    case NodeKind::sequence:
      return "array";
    case NodeKind::mapping:
      return "object";
  }
  return "unknown";
}

std::ptrdiff_t Node::key_index(std::string_view key) const {
  if (kind != NodeKind::mapping) return -1;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == key) return static_cast<std::ptrdiff_t>(i);
  }
  return -1;
}

const Node* Node::find(std::string_view key) const {
  const auto i = key_index(key);
  return i < 0 ? nullptr : &items[static_cast<std::size_t>(i)];
}

const Node* Node::at_path(std::initializer_list<std::string_view> path) const {
  const Node* cur = this;
  for (auto key : path) {
    cur = cur->find(key);
    if (cur == nullptr) return nullptr;
  }
  return cur;
}

std::string_view line_of(std::string_view text, std::uint32_t line) {
  if (line == 0) return {};
  std::size_t start = 0;
  for (std::uint32_t l = 1; l < line; ++l) {
    const auto nl = text.find('\n', start);
    if (nl == std::string_view::npos) return {};
    start = nl + 1;
  }
  auto end = text.find('\n', start);
  if (end == std::string_view::npos) end = text.size();
  auto out = text.substr(start, end - start);
  if (!out.empty() && out.back() == '\r') out.remove_suffix(1);
  return out;
}

}  // namespace kpt::yaml
