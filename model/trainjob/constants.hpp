#pragma once

// Names Kubeflow Trainer and JobSet use, from kubeflow/trainer v2.3.0 pkg/constants/constants.go
// and kubernetes-sigs/jobset v0.12.0 api/jobset/v1alpha2 and pkg/constants.

namespace kpt::model::trainjob {

inline constexpr const char* k_group = "trainer.kubeflow.org";
inline constexpr const char* k_api_version = "trainer.kubeflow.org/v1alpha1";
inline constexpr const char* k_kind_trainjob = "TrainJob";
inline constexpr const char* k_kind_training_runtime = "TrainingRuntime";
inline constexpr const char* k_kind_cluster_training_runtime = "ClusterTrainingRuntime";

inline constexpr const char* k_label_ancestor = "trainer.kubeflow.org/trainjob-ancestor-step";
inline constexpr const char* k_label_framework = "trainer.kubeflow.org/framework";
inline constexpr const char* k_label_webhook_validation = "trainer.kubeflow.org/webhook-validation";
inline constexpr const char* k_label_support = "trainer.kubeflow.org/support";
inline constexpr const char* k_ancestor_trainer = "trainer";
inline constexpr const char* k_ancestor_dataset = "dataset-initializer";
inline constexpr const char* k_ancestor_model = "model-initializer";
/// The trainer job's and its container's name.
inline constexpr const char* k_node = "node";
inline constexpr int k_trainer_port = 29500;
inline constexpr const char* k_managed_by_trainer = "trainer.kubeflow.org/trainjob-controller";
inline constexpr const char* k_managed_by_multikueue = "kueue.x-k8s.io/multikueue";
inline constexpr const char* k_snapshot_suffix = "-runtime-snapshot";
inline constexpr const char* k_snapshot_key = "runtime";
inline constexpr const char* k_storage_uri_env = "STORAGE_URI";

inline constexpr const char* k_jobset_api_version = "jobset.x-k8s.io/v1alpha2";
inline constexpr const char* k_completion_index_key = "batch.kubernetes.io/job-completion-index";
/// The fieldRef of PET_NODE_RANK and the other per-node rank variables.
inline constexpr const char* k_completion_index_field_path =
    "metadata.annotations['batch.kubernetes.io/job-completion-index']";

}  // namespace kpt::model::trainjob
