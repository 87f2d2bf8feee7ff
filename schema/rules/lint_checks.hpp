#pragma once

#include "schema/rules/rules.hpp"
#include "yaml/node.hpp"

// The lint groups check_lints() runs; each returns every finding, disabled or not.
namespace kpt::schema::rules {

Diagnostics check_misplaced_fields(const yaml::Document& doc, const RuleOptions& opts);
Diagnostics check_job_lints(const yaml::Document& doc, const RuleOptions& opts);
Diagnostics check_image_lint(const yaml::Document& doc);

}  // namespace kpt::schema::rules
