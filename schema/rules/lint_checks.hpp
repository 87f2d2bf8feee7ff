#pragma once

#include "yaml/node.hpp"
#include "schema/rules/rules.hpp"

// The lint groups check_lints() runs; each returns every finding, disabled or not.
namespace kpt::schema::rules {

Diagnostics check_misplaced_fields(const yaml::Document& doc, const RuleOptions& opts);
Diagnostics check_job_lints(const yaml::Document& doc, const RuleOptions& opts);
Diagnostics check_image_lint(const yaml::Document& doc);

}  // namespace kpt::schema::rules
