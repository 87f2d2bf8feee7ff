#include "plugin/doctor/doctor_detect.hpp"

#include "util/json_access.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iterator>

namespace kpt::plugin {

namespace {

using model::pytorchjob::Release;

struct ImageTag {
  Release release;
  std::string_view sha;  ///< the commit the tag names: 40 chars (v1.3/v1.4 on public.ecr.aws) or 7 (v1-<sha>)
};

// The image each release's kustomize overlay (manifests/overlays/standalone) deploys. v1.9.1 deploys an
// untagged image: its overlay renames an image the base no longer names (kubeflow/trainer#2583).
constexpr ImageTag k_image_tags[] = {
    {{1, 3, 0}, "760ac1171dd30039a7363ffa03c77454bd714da5"},
    {{1, 4, 0}, "174e8813666951ded505daf334a37f60fd50c18d"},
    {{1, 5, 0}, "e1434f6"},
    {{1, 6, 0}, "5a5f92d"},
    {{1, 7, 0}, "855e096"},
    {{1, 8, 0}, "9e52eb7"},
    {{1, 8, 1}, "04f9f13"},
    {{1, 9, 0}, "5170a36"},
    {{1, 9, 2}, "3f15cb8"},
    {{1, 9, 3}, "d6eb98e"},
    {{1, 9, 4}, "93c5489"},
};
constexpr Release k_untagged_release{1, 9, 1};
constexpr std::size_t k_short_sha = 7;

bool is_hex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

/// Splits "reg:5000/a/b:tag@sha256:..." into the tag ("tag") and whether a digest is present.
void split_image(std::string_view image, std::string& tag, bool& has_digest) {
  has_digest = false;
  if (const auto at = image.find('@'); at != std::string_view::npos) {
    has_digest = true;
    image = image.substr(0, at);
  }
  const auto slash = image.rfind('/');
  const auto colon = image.rfind(':');
  tag.clear();
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    tag = std::string(image.substr(colon + 1));
  }
}

std::string label_value(const std::vector<std::pair<std::string, std::string>>& labels,
                        std::string_view key) {
  for (const auto& [k, v] : labels) {
    if (k == key) return v;
  }
  return {};
}

std::vector<Release> sorted(std::vector<Release> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::string image_words(const ImageMatch& m) {
  switch (m.kind) {
    case ImageMatch::Kind::release:
    case ImageMatch::Kind::untagged:
      return "the image says " + releases_text(m.releases);
    default:
      return "the image says nothing";
  }
}

}  // namespace

ImageMatch match_operator_image(std::string_view image) {
  ImageMatch out;
  bool has_digest = false;
  split_image(image, out.tag, has_digest);
  if (out.tag.empty()) {
    out.kind = has_digest ? ImageMatch::Kind::digest : ImageMatch::Kind::untagged;
    if (!has_digest) out.releases = {k_untagged_release};
    return out;
  }
  if (out.tag == "latest") {
    out.kind = ImageMatch::Kind::latest;
    return out;
  }
  std::string_view sha = out.tag;
  if (sha.substr(0, 3) == "v1-") sha.remove_prefix(3);
  if (sha.size() < k_short_sha || !is_hex(sha)) return out;
  for (const auto& t : k_image_tags) {
    // CI pushes v1-<7-char sha>; v1.3/v1.4 used the full sha. Either length names the same commit.
    const std::string_view shorter = sha.size() < t.sha.size() ? sha : t.sha;
    const std::string_view longer = sha.size() < t.sha.size() ? t.sha : sha;
    if (longer.substr(0, shorter.size()) == shorter) {
      out.kind = ImageMatch::Kind::release;
      out.releases.push_back(t.release);
    }
  }
  return out;
}

std::string trainer_version_from_image(std::string_view image) {
  std::string tag;
  bool has_digest = false;
  split_image(image, tag, has_digest);
  if (tag.size() < 2 || tag[0] != 'v' || tag[1] != '2') return {};
  return tag;
}

std::string releases_text(const std::vector<Release>& releases) {
  const auto sorted_releases = sorted(releases);
  const auto index_of = [](const Release& r) {
    return std::find(model::pytorchjob::k_releases.begin(), model::pytorchjob::k_releases.end(), r) -
           model::pytorchjob::k_releases.begin();
  };
  std::string out;
  for (std::size_t i = 0; i < sorted_releases.size();) {
    std::size_t j = i;
    while (j + 1 < sorted_releases.size() &&
           index_of(sorted_releases[j + 1]) == index_of(sorted_releases[j]) + 1)
      ++j;
    if (!out.empty()) out += ", ";
    out += sorted_releases[i].to_string();
    if (j > i) out += "-" + sorted_releases[j].to_string();
    i = j + 1;
  }
  return out;
}

Verdict combine(const DetectionInput& in, const std::optional<OurController>& ours) {
  Verdict v;
  if (ours && !in.image) {
    // Our controller serves the carried newest CRD and injects its own style; the CRD and the
    // (absent) webhook say nothing about what the pods get.
    v.kind = Verdict::Kind::ours;
    v.release = model::pytorchjob::k_newest_release;
    v.ours = ours;
    v.summary = "kubectl-pytorch's controller (" + ours->where + "), env style " +
                model::pytorchjob::to_string(ours->style);
    return v;
  }
  if (ours) {
    v.notes.push_back("kubectl-pytorch's controller (" + ours->where +
                      ") runs beside the Training Operator: both reconcile the same PyTorchJobs unless "
                      "one is started with --managed-by");
  }
  const bool image_speaks = in.image && !in.image->releases.empty();
  const bool crd_speaks = in.crd && !in.crd->empty();
  const std::vector<Release> image = image_speaks ? sorted(in.image->releases) : std::vector<Release>{};
  const std::vector<Release> crd = crd_speaks ? sorted(*in.crd) : std::vector<Release>{};

  if (in.image) {
    switch (in.image->kind) {
      case ImageMatch::Kind::untagged:
        v.notes.push_back(
            "the operator image has no tag: v1.9.1's manifests deploy it so (#2583), but it is "
            "whatever 'latest' was when the pod started");
        break;
      case ImageMatch::Kind::latest:
        v.notes.push_back("the operator image tag 'latest' names no release");
        break;
      case ImageMatch::Kind::digest:
        v.notes.push_back("the operator image is pinned by digest only: no tag to map to a release");
        break;
      case ImageMatch::Kind::unknown:
        v.notes.push_back("the operator image tag " + util::quote(in.image->tag) +
                          " is in no release's manifests");
        break;
      case ImageMatch::Kind::release:
        break;
    }
  }
  if (in.crd && in.crd->empty()) {
    v.notes.push_back("the PyTorchJob CRD matches no release's schema (edited by hand, or from a fork)");
  }

  if (image_speaks && crd_speaks) {
    const auto common = intersect_releases(image, crd);
    if (!common.empty()) {
      v.kind = Verdict::Kind::agree;
      v.candidates = common;
      v.release = common.back();
      v.summary = "operator " + v.release->to_string() + ": the image and the CRD agree";
    } else {
      v.kind = Verdict::Kind::disagree;
      v.candidates = image;
      v.release = image.back();
      v.summary = "the image says " + releases_text(image) + " but the CRD says " + releases_text(crd) +
                  ": " +
                  (crd.back() < image.front() ? "the CRD was not upgraded with the operator"
                                              : "the CRD is newer than the operator") +
                  "; using " + v.release->to_string();
    }
  } else if (image_speaks) {
    v.kind = Verdict::Kind::image;
    v.candidates = image;
    v.release = image.back();
    v.summary = "operator " + v.release->to_string() + " from the image (the CRD says nothing)";
  } else if (crd_speaks) {
    v.kind = Verdict::Kind::crd;
    v.candidates = crd;
    v.release = crd.back();
    v.summary = "operator " + releases_text(crd) + " from the CRD (" +
                (in.image ? image_words(*in.image) : "no operator Deployment found") + ")";
    if (crd.size() > 1) v.summary += "; using " + v.release->to_string();
  } else {
    v.kind = Verdict::Kind::unknown;
    v.summary = in.image || in.crd ? "the operator release is unknown" : "no Training Operator v1 found";
  }

  if (v.release && in.webhook) {
    if (*in.webhook && !v.release->at_least(8)) {
      v.notes.push_back(
          "a validating webhook 'validator.training-operator.kubeflow.org' exists, which only v1.8+ "
          "installs");
    } else if (!*in.webhook && v.release->at_least(8)) {
      v.notes.push_back("no validating webhook 'validator.training-operator.kubeflow.org', which " +
                        v.release->to_string() + " installs: invalid jobs are not rejected when created");
    }
  }
  if (v.release && in.pod_labels && !in.pod_labels->empty() &&
      std::find(in.pod_labels->begin(), in.pod_labels->end(), *v.release) == in.pod_labels->end()) {
    v.notes.push_back("pods of existing jobs carry the labels of " + releases_text(*in.pod_labels) +
                      ", not of " + v.release->to_string() +
                      ": another release made them (before an upgrade?)");
  }
  return v;
}

std::vector<Release> intersect_releases(const std::vector<Release>& a, const std::vector<Release>& b) {
  std::vector<Release> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

std::vector<Release> releases_from_pod_labels(const std::map<std::string, std::string>& labels) {
  const auto has = [&](const std::string& key) { return labels.count(key) != 0; };
  const auto value = [&](const std::string& key) { return has(key) ? labels.at(key) : std::string{}; };
  if (has("app.kubernetes.io/name")) return {};
  const bool old_keys = value("group-name") == "kubeflow.org";
  const bool new_keys = has("training.kubeflow.org/operator-name");
  Release first{1, 6, 0};
  Release last = model::pytorchjob::k_newest_release;
  if (old_keys && !new_keys) {
    first = last = Release{1, 3, 0};
  } else if (old_keys) {
    first = Release{1, 4, 0};
    last = Release{1, 5, 0};
  } else if (!new_keys) {
    return {};
  } else if (value("training.kubeflow.org/replica-type") == "worker" &&
             value("training.kubeflow.org/job-role") == "master") {
    first = Release{1, 8, 0};
  }
  std::vector<Release> out;
  for (const auto& r : model::pytorchjob::k_releases) {
    if (r >= first && r <= last) out.push_back(r);
  }
  return out;
}

model::pytorchjob::EnvStyle style_for(const Release& release) {
  return model::pytorchjob::EnvStyle{model::pytorchjob::StyleKind::operator_release, release};
}

std::string env_style_summary(const Release& release) {
  if (!release.at_least(4)) {
    return "MASTER_ADDR (localhost on the master), MASTER_PORT, RANK, WORLD_SIZE; the job needs a Master";
  }
  if (!release.at_least(7)) {
    return "MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE only with a Master replica; PYTHONUNBUFFERED=0";
  }
  return "MASTER_*, RANK, WORLD_SIZE (x nprocPerNode) and PET_* only with a Master replica; "
         "worker-only jobs get PET_NNODES and no MASTER_ADDR";
}

AddOns add_ons_from_crd_names(const std::vector<std::string>& crd_names) {
  AddOns a;
  for (const auto& n : crd_names) {
    if (n == "trainjobs.trainer.kubeflow.org") a.trainer_v2 = true;
    if (n == "trainjobs.kubeflow.org") a.v1_9_0_trainjob = true;
    if (n == "podgroups.scheduling.volcano.sh") a.volcano = true;
    if (n == "podgroups.scheduling.x-k8s.io" || n == "podgroups.scheduling.sigs.k8s.io") {
      a.scheduler_plugins = true;
      if (a.scheduler_plugins_group.empty() || n == "podgroups.scheduling.x-k8s.io") {
        a.scheduler_plugins_group = n.substr(n.find('.') + 1);
      }
    }
    if (n == "workloads.kueue.x-k8s.io" || n == "clusterqueues.kueue.x-k8s.io") a.kueue = true;
    if (n == "jobsets.jobset.x-k8s.io") a.jobset = true;
  }
  return a;
}

bool is_training_operator_deployment(std::string_view name,
                                     const std::vector<std::pair<std::string, std::string>>& labels) {
  return name == "training-operator" || label_value(labels, "control-plane") == "kubeflow-training-operator";
}

bool is_trainer_v2_deployment(std::string_view name,
                              const std::vector<std::pair<std::string, std::string>>& labels) {
  return name == "kubeflow-trainer-controller-manager" ||
         (label_value(labels, "app.kubernetes.io/name") == "trainer" &&
          label_value(labels, "app.kubernetes.io/component") == "manager");
}

model::pytorchjob::EnvStyle style_for(const Verdict& verdict) {
  if (verdict.ours) return verdict.ours->style;
  return style_for(verdict.release.value_or(model::pytorchjob::k_newest_release));
}

bool is_our_controller_deployment(std::string_view name,
                                  const std::vector<std::pair<std::string, std::string>>& labels) {
  return name == "kubectl-pytorch-controller" ||
         label_value(labels, "app.kubernetes.io/name") == "kubectl-pytorch-controller";
}

model::pytorchjob::EnvStyle style_from_controller_args(const std::vector<std::string>& args) {
  std::string value;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--env-style" && i + 1 < args.size()) value = args[i + 1];
    if (args[i].rfind("--env-style=", 0) == 0)
      value = args[i].substr(std::string_view("--env-style=").size());
  }
  if (auto style = model::pytorchjob::parse_style(value)) return *style;
  return model::pytorchjob::EnvStyle{model::pytorchjob::StyleKind::worker_only,
                                     model::pytorchjob::k_newest_release};
}

bool is_local_cluster_version(const std::string& version_json) {
  const auto v = nlohmann::json::parse(version_json, nullptr, false);
  if (!v.is_object()) return false;
  // The embedded server with its controller; without it (`local up --server-only`) it is just
  // an API server, and the CRDs it holds speak for themselves.
  const std::string git = util::string_at(v, "gitVersion");
  const std::string suffix = "-kubectl-pytorch+controller";
  return git.size() > suffix.size() && git.compare(git.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace kpt::plugin
