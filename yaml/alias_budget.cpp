#include "yaml/alias_budget.hpp"

#include <yaml.h>

#include <algorithm>
#include <string>
#include <unordered_map>

namespace kpt::yaml {

bool may_contain_aliases(std::string_view text) {
  return text.find('&') != std::string_view::npos && text.find('*') != std::string_view::npos;
}

std::vector<std::size_t> documents_over_node_limit(std::string_view text, std::size_t max_nodes,
                                                   std::size_t max_depth) {
  std::vector<std::size_t> out;
  yaml_parser_t parser;
  if (yaml_parser_initialize(&parser) == 0) return out;
  yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()), text.size());

  std::unordered_map<std::string, std::size_t> anchors;  // anchor -> expanded node count
  std::vector<std::size_t> open;                         // node counts of open containers
  std::vector<std::string> open_anchors;
  std::size_t total = 0;
  std::size_t doc = 0;
  bool over = false;
  // Saturating sums: counts stop just past the limit, so a bomb cannot overflow them.
  const auto sum = [&](std::size_t a, std::size_t b) {
    return b > max_nodes - std::min(a, max_nodes) ? max_nodes + 1 : a + b;
  };
  const auto add = [&](std::size_t n, bool to_parent) {
    total = sum(total, n);
    if (total > max_nodes) over = true;
    if (to_parent && !open.empty()) open.back() = sum(open.back(), n);
  };
  const auto anchor_of = [](const yaml_char_t* a) {
    return a == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(a));
  };

  for (bool done = false; !done;) {
    yaml_event_t ev;
    if (yaml_parser_parse(&parser, &ev) == 0) break;
    switch (ev.type) {
      case YAML_STREAM_END_EVENT:
        done = true;
        break;
      case YAML_DOCUMENT_START_EVENT:
        anchors.clear();
        open.clear();
        open_anchors.clear();
        total = 0;
        over = false;
        break;
      case YAML_DOCUMENT_END_EVENT:
        if (over) out.push_back(doc);
        ++doc;
        break;
      case YAML_SCALAR_EVENT:
        add(1, true);
        if (ev.data.scalar.anchor != nullptr) anchors[anchor_of(ev.data.scalar.anchor)] = 1;
        break;
      case YAML_SEQUENCE_START_EVENT:
      case YAML_MAPPING_START_EVENT: {
        add(1, false);                              // the parent counts this container when it ends
        if (open.size() >= max_depth) done = true;  // the builder stops the file here; so do we
        const auto* a = ev.type == YAML_SEQUENCE_START_EVENT ? ev.data.sequence_start.anchor
                                                             : ev.data.mapping_start.anchor;
        open.push_back(1);
        open_anchors.push_back(anchor_of(a));
        break;
      }
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT:
        if (!open.empty()) {
          const auto n = open.back();
          open.pop_back();
          if (!open_anchors.back().empty()) anchors[open_anchors.back()] = n;
          open_anchors.pop_back();
          if (!open.empty()) open.back() = sum(open.back(), n);
        }
        break;
      case YAML_ALIAS_EVENT: {
        const auto it = anchors.find(anchor_of(ev.data.alias.anchor));
        if (it != anchors.end()) add(it->second, true);
        break;
      }
      case YAML_NO_EVENT:
      case YAML_STREAM_START_EVENT:
        break;
    }
    yaml_event_delete(&ev);
  }
  yaml_parser_delete(&parser);
  return out;
}

}  // namespace kpt::yaml
