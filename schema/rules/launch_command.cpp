#include "schema/rules/launch_command.hpp"

namespace kpt::schema::rules {

std::vector<std::string> container_argv(const yaml::Node& container) {
  std::vector<std::string> out;
  for (const char* key : {"command", "args"}) {
    const yaml::Node* list = container.find(key);
    if (list == nullptr || !list->is_seq()) continue;
    for (const auto& item : list->items) {
      if (item.is_scalar() && item.kind != yaml::NodeKind::null) out.push_back(item.text);
    }
  }
  return out;
}

}  // namespace kpt::schema::rules
