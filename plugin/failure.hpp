#pragma once

#include "util/expected.hpp"

#include <iosfwd>
#include <string_view>

namespace kpt::plugin {

struct Context;

/// The exit code an operational error documents (README "Exit codes", `--help`): 2 for usage
/// and I/O errors (ErrorCode io, parse, limit, usage, config: bad flags, unreadable files, no
/// usable kubeconfig), 1 when the operation failed (input that breaks a rule, the API server's
/// answer, an unreachable cluster, a timeout, a broken invariant).
int exit_code_for(ErrorCode code);

/// How a command fails: prints the error on ctx.err and returns its exit code.
int fail(const Context& ctx, const Error& error);

/// A usage error (exit 2): the user asked for something that cannot be done.
int fail_usage(const Context& ctx, std::string_view message);

}  // namespace kpt::plugin
