#pragma once

#include <vector>

#include "controller/model/release.hpp"
#include "schema/node.hpp"

namespace kpt::schema {

/// The operator releases whose PyTorchJob CRD could be `crd_root` (a parsed
/// apiextensions.k8s.io/v1 CustomResourceDefinition), oldest first. Uses the facts' §6 recipe:
/// the `controller-gen.kubebuilder.io/version` annotation and, since no field was ever removed
/// from the spec, the presence and absence of the fields each release added. Empty when the CRD
/// matches no release (hand-edited, or not the PyTorchJob CRD).
std::vector<model::Release> releases_matching_crd(const Node& crd_root);

}  // namespace kpt::schema
