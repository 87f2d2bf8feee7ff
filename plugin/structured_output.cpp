#include "plugin/structured_output.hpp"

#include "yaml/yaml_writer.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <sstream>

namespace kpt::plugin {

void write_structured(std::ostream& out, std::string_view format,
                      const std::function<void(std::ostream&)>& write_json) {
  if (format != "yaml") {
    write_json(out);
    return;
  }
  std::ostringstream json_text;
  write_json(json_text);
  // Our own writers' output: a parse failure is a broken invariant, thrown and reported once.
  out << yaml::to_yaml(nlohmann::json::parse(json_text.str()));
}

}  // namespace kpt::plugin
