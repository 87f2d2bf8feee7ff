#pragma once

#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>
#include <vector>

namespace kpt::plugin {

struct Context;

/// What `run` reads its job from: FILE, or --image and the command.
struct JobSource {
  std::vector<std::string> args;  ///< FILE, or with an image the command
  std::string image;
  int workers = 1;
  std::string nproc_per_node;
  std::string name;
  std::string operator_release;  ///< validate for this release (default v1.9.4)
  bool local = false;            ///< validate for the embedded cluster (worker-only env, no images)
  bool force = false;            ///< run even when validation finds errors
};

struct PreparedJob {
  nlohmann::json job;
  std::string folder;  ///< the manifest's folder (absolute), for --local
};

/// The job from --image or from FILE. A FILE is validated first and its findings printed on
/// ctx.err; findings of error severity fail with ErrorCode::invalid unless `force`.
Expected<PreparedJob> prepare_job(const Context& ctx, const JobSource& source);

}  // namespace kpt::plugin
