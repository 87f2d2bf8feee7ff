# `ninja krew-package`: the krew archive for this architecture, its sha256 written into
# build/krew/krew-manifest.yaml (scripts/krew_package.sh --in-place updates the top-level one).
add_custom_target(krew-package
  COMMAND ${PROJECT_SOURCE_DIR}/scripts/krew_package.sh $<TARGET_FILE:kubectl-pytorch> ${PROJECT_BINARY_DIR}/krew
  DEPENDS kubectl-pytorch
  COMMENT "Packaging kubectl-pytorch for krew"
  VERBATIM)

# `ninja controller-image`: the in-cluster controller's OCI image layout in build/image/oci, its
# digest-pinned reference in build/image/reference and the Deployment manifests pinned to it in
# build/image/deploy (scripts/controller_image.py; push it with `controller_image.py push`).
add_custom_target(controller-image
  COMMAND ${PROJECT_SOURCE_DIR}/scripts/controller_image.py build $<TARGET_FILE:kubectl-pytorch> ${PROJECT_BINARY_DIR}/image
  DEPENDS kubectl-pytorch
  COMMENT "Building the controller's OCI image"
  VERBATIM)
