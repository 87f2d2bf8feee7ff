#pragma once

#include "apiserver/resources.hpp"
#include "apiserver/status.hpp"

#include <nlohmann/json_fwd.hpp>

#include <optional>

namespace kpt::apiserver {

/// What the real server's registry strategies do to a built-in object on create and update,
/// before validation: a Secret's `stringData` merged into base64 `data` (its keys win) and its
/// type defaulted to Opaque; a Job's spec defaulted and its pods' labels set from its uid
/// (k8s.io/kubernetes pkg/registry/batch/job/strategy.go, pkg/apis/batch/v1/defaults.go).
/// A Secret whose `data` is not base64 is 400, as the real server's decoder refuses it.
std::optional<Error> prepare_builtin(const ResourceInfo& res, nlohmann::json& object);

}  // namespace kpt::apiserver
