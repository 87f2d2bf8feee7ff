# `ninja krew-package`: the krew archive for this architecture, its sha256 written into
# build/krew/krew-manifest.yaml (scripts/krew_package.sh --in-place updates the top-level one).
add_custom_target(krew-package
  COMMAND ${PROJECT_SOURCE_DIR}/scripts/krew_package.sh $<TARGET_FILE:kubectl-pytorch> ${PROJECT_BINARY_DIR}/krew
  DEPENDS kubectl-pytorch
  COMMENT "Packaging kubectl-pytorch for krew"
  VERBATIM)
