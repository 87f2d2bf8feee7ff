#pragma once

#include "plugin/doctor/doctor_gather.hpp"

#include <iosfwd>

namespace kpt::plugin {

/// The human report: an aligned CHECK / STATUS / DETAIL table, notes, then one `verdict:` line.
/// STATUS is coloured (green good, yellow absent, red forbidden or failed) only when `colour`.
void write_doctor_table(std::ostream& out, const DoctorReport& report, bool colour);

/// The report as one JSON object (stable keys, documented in `doctor --help`):
/// {"server", "namespace",
///  "operator": {"state", "namespace", "name", "image", "imageTag", "imageKind", "imageReleases": [...]},
///  "crd": {"state", "servedVersions", "controllerGen", "controllerGenReleases", "fingerprintReleases",
///          "resourceVersion"},
///  "webhook": {"state", "name"},
///  "trainerV2": {"crd", "deployment": {"state", "namespace", "name", "image"}, "version"},
///  "gangScheduling": {"state", "volcano", "schedulerPlugins", "schedulerPluginsGroup", "kueue"},
///  "permissions": [{"verb", "resource", "namespace", "state", "allowed", "reason"}],
///  "verdict": {"kind", "release", "candidates", "envStyle", "summary", "notes"},
///  "controller": {"deployment": {"state", "where", "desired", "ready", "available"},
///                 "lease": {"state", "key", "holder", "renewedSecondsAgo", "live"},
///                 "jobs": {"state", "stuck": [{"job", "phase", "minutes"}]}},
///  "problems": ["..."]}
/// "state" is "found", "notInstalled", "forbidden" or "failed" (then a "message" key says why);
/// "release" and "envStyle" are null when unknown.
void write_doctor_json(std::ostream& out, const DoctorReport& report);

}  // namespace kpt::plugin
