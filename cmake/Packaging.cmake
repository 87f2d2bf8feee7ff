# `ninja krew-package`: the release archive of this build's binary in build/krew, with the krew
# manifest that names its sha256 (scripts/release.sh; a release itself runs that script, which links
# the binary with KPT_PORTABLE).
add_custom_target(krew-package
  COMMAND ${PROJECT_SOURCE_DIR}/scripts/release.sh --build-dir ${PROJECT_BINARY_DIR} --no-build ${PROJECT_BINARY_DIR}/krew
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
