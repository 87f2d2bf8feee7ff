#include "util/diagnostic.hpp"

namespace kpt {

// The words every output format uses (text, json, junit): part of the documented -o json.
const char* to_string(Severity severity) {
  switch (severity) {
    case Severity::error:
      return "error";
    case Severity::warning:
      return "warning";
    case Severity::info:
      break;
  }
  return "info";
}

}  // namespace kpt
