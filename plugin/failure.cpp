#include "plugin/failure.hpp"

#include "plugin/context.hpp"
#include "plugin/exit_codes.hpp"
#include "plugin/plugin.hpp"
#include "util/messages.hpp"

#include <ostream>
#include <string>

namespace kpt::plugin {

int exit_code_for(ErrorCode code) {
  switch (code) {
    case ErrorCode::io:
    case ErrorCode::parse:
    case ErrorCode::limit:
    case ErrorCode::usage:
    case ErrorCode::config:
      return exit_code::usage;
    case ErrorCode::invalid:
    case ErrorCode::http:
    case ErrorCode::api:
    case ErrorCode::not_found:
    case ErrorCode::timeout:
    case ErrorCode::internal:
      return exit_code::findings;
  }
  return exit_code::findings;
}

int fail(const Context& ctx, const Error& error) {
  util::print_error(ctx.err, error.message);
  return exit_code_for(error.code);
}

int fail_usage(const Context& ctx, std::string_view message) {
  return fail(ctx, make_error(ErrorCode::usage, std::string(message)));
}

}  // namespace kpt::plugin
