#include "kube/api_client.hpp"

namespace kpt::kube {

std::string ResourceRef::group_version_path() const {
  if (group.empty()) return "/api/" + version;
  return "/apis/" + group + "/" + version;
}

std::string ResourceRef::collection_path(const std::string& ns) const {
  std::string path = group_version_path();
  if (namespaced && !ns.empty()) path += "/namespaces/" + ns;
  return path + "/" + resource;
}

std::string ResourceRef::object_path(const std::string& ns, const std::string& name,
                                     const std::string& subresource) const {
  std::string path = collection_path(ns) + "/" + name;
  if (!subresource.empty()) path += "/" + subresource;
  return path;
}

namespace resources {
ResourceRef pods() { return {"", "v1", "pods", "Pod", true}; }
ResourceRef services() { return {"", "v1", "services", "Service", true}; }
ResourceRef events() { return {"", "v1", "events", "Event", true}; }
ResourceRef namespaces() { return {"", "v1", "namespaces", "Namespace", false}; }
ResourceRef leases() { return {"coordination.k8s.io", "v1", "leases", "Lease", true}; }
ResourceRef deployments() { return {"apps", "v1", "deployments", "Deployment", true}; }
ResourceRef crds() {
  return {"apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", false};
}
ResourceRef pytorchjobs() { return {"kubeflow.org", "v1", "pytorchjobs", "PyTorchJob", true}; }
ResourceRef configmaps() { return {"", "v1", "configmaps", "ConfigMap", true}; }
ResourceRef trainjobs() { return {"trainer.kubeflow.org", "v1alpha1", "trainjobs", "TrainJob", true}; }
ResourceRef trainingruntimes() {
  return {"trainer.kubeflow.org", "v1alpha1", "trainingruntimes", "TrainingRuntime", true};
}
ResourceRef clustertrainingruntimes() {
  return {"trainer.kubeflow.org", "v1alpha1", "clustertrainingruntimes", "ClusterTrainingRuntime", false};
}
ResourceRef jobsets() { return {"jobset.x-k8s.io", "v1alpha2", "jobsets", "JobSet", true}; }
}  // namespace resources

}  // namespace kpt::kube
