#include "plugin/follow/line_filter.hpp"

#include "plugin/follow/rank_silence.hpp"
#include "schema/cel/regex.hpp"
#include "util/strings.hpp"

#include <memory>
#include <variant>

namespace kpt::plugin {

namespace {

using Compiled = std::shared_ptr<const cel::regex::Regex>;

Expected<std::vector<Compiled>> compile_all(const std::vector<std::string>& patterns, const char* flag) {
  std::vector<Compiled> out;
  for (const auto& p : patterns) {
    auto compiled = cel::regex::Regex::compile(p);
    if (auto* error = std::get_if<cel::regex::RegexError>(&compiled))
      return make_error(ErrorCode::usage,
                        std::string("invalid ") + flag + " " + util::quote(p) + ": " + error->message);
    out.push_back(std::get<Compiled>(std::move(compiled)));
  }
  return out;
}

bool any_match(const std::vector<Compiled>& patterns, std::string_view line) {
  for (const auto& p : patterns) {
    if (p->search(line)) return true;
  }
  return false;
}

}  // namespace

Expected<std::function<bool(std::string_view)>> make_line_filter(const std::vector<std::string>& includes,
                                                                 const std::vector<std::string>& excludes) {
  auto in = compile_all(includes, "--include");
  if (!in) return in.error();
  auto ex = compile_all(excludes, "--exclude");
  if (!ex) return ex.error();
  if (in->empty() && ex->empty()) return std::function<bool(std::string_view)>{};
  return std::function<bool(std::string_view)>(
      [in = std::move(*in), ex = std::move(*ex)](std::string_view line) {
        // A timestamp the server put before the line is not part of what the user matches.
        const std::string_view text = without_timestamp(line);
        return (in.empty() || any_match(in, text)) && !any_match(ex, text);
      });
}

}  // namespace kpt::plugin
