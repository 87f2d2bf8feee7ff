#pragma once

#include <string>

namespace kpt::controller {

/// The process_* families Prometheus' client libraries export (cpu seconds, resident and virtual
/// memory, start time, open and maximum file descriptors), read from /proc/self at each scrape;
/// empty where /proc cannot be read.
std::string process_metrics_text();

}  // namespace kpt::controller
