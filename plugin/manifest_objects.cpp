#include "plugin/manifest_objects.hpp"

#include "util/strings.hpp"
#include "yaml/input_files.hpp"
#include "yaml/manifest_reader.hpp"
#include "yaml/node_json.hpp"

namespace kpt::plugin {

Expected<std::vector<nlohmann::json>> read_manifest_objects(const std::string& path, std::istream& in) {
  auto disk = yaml::make_disk_reader();
  const yaml::ReadLimits limits{};
  auto inputs = yaml::collect_inputs({path}, *disk, in, limits.max_bytes);
  if (!inputs) return inputs.error();
  std::vector<nlohmann::json> objects;
  for (const auto& input : *inputs) {
    if (input.too_large) {
      return make_error(ErrorCode::limit, "reading " + util::quote(input.name) + ": larger than " +
                                              std::to_string(limits.max_bytes) + " bytes");
    }
    const auto read = yaml::read_manifests(input.name, input.text, limits);
    for (const auto& d : read.findings) {
      if (d.severity != Severity::error) continue;
      return make_error(ErrorCode::parse, d.location.file + ":" + std::to_string(d.location.line) + ":" +
                                              std::to_string(d.location.col) + ": " + d.message);
    }
    for (const auto& doc : read.documents) {
      nlohmann::json j = yaml::to_json(doc.root);
      if (j.is_object()) objects.push_back(std::move(j));
    }
  }
  return objects;
}

}  // namespace kpt::plugin
