#include "model/pytorchjob/names.hpp"

#include "util/strings.hpp"

#include <algorithm>

namespace kpt::model::pytorchjob {

std::string replica_name(std::string_view job, std::string_view replica_type, int index) {
  std::string name = std::string(job) + "-" + util::to_lower(replica_type) + "-" + std::to_string(index);
  std::replace(name.begin(), name.end(), '/', '-');
  return name;
}

std::string service_name(std::string_view job, std::string_view replica_type, int index) {
  return replica_name(job, replica_type, index);
}

std::string camel_replica_type(std::string_view replica_type) {
  std::string out = util::to_lower(replica_type);
  if (!out.empty() && out.front() >= 'a' && out.front() <= 'z')
    out.front() = static_cast<char>(out.front() - 'a' + 'A');
  return out;
}

}  // namespace kpt::model::pytorchjob
