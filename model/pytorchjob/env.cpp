#include "model/pytorchjob/env.hpp"

#include "model/pytorchjob/names.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <charconv>

namespace kpt::model::pytorchjob {

namespace {

using nlohmann::json;

struct Builder {
  std::vector<EnvVar> env;
  void add(std::string name, std::string value) { env.push_back({std::move(name), std::move(value)}); }
  void add(std::string name, int value) { add(std::move(name), std::to_string(value)); }
};

/// getNprocPerNodeInt (v1.7+): the defaulted spec.nprocPerNode as an int, 1 when it is not one ("auto").
int nproc_int(const JobSpec& job) {
  if (!job.nproc_per_node_defaulted) return 1;
  const std::string& text = *job.nproc_per_node_defaulted;
  int value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) return 1;
  return value;
}

/// The rank the operator gives a replica: Master by index, Workers index+1 (v1.4+ only Workers shift).
int operator_rank(const std::string& type, int index) { return type == "Worker" ? index + 1 : index; }

/// The elastic block of elastic.go, in its order. `name_nproc` is PET_N_PROC_PER_NODE in v1.4 (sic).
Expected<void> add_elastic(Builder& b, const JobSpec& job, const std::string& default_host,
                           const char* name_nproc) {
  const ElasticPolicy& e = *job.elastic;
  const ReplicaSpec* worker = job.find("Worker");
  if (!e.rdzv_port && worker == nullptr) {
    return make_error(ErrorCode::usage, "spec.elasticPolicy: needs a Worker replica for its rendezvous port");
  }
  const std::string host = e.rdzv_host.value_or(default_host);
  b.add("PET_RDZV_ENDPOINT",
        host + ":" + std::to_string(e.rdzv_port.value_or(worker != nullptr ? worker->port : 0)));
  b.add("PET_RDZV_BACKEND", e.rdzv_backend.value_or("c10d"));
  if (e.min_replicas && e.max_replicas) {
    b.add("PET_NNODES", std::to_string(*e.min_replicas) + ":" + std::to_string(*e.max_replicas));
  } else {
    b.add("PET_NNODES", worker != nullptr ? worker->replicas : 0);
  }
  if (e.max_restarts) b.add("PET_MAX_RESTARTS", *e.max_restarts);
  if (e.n_proc_per_node) b.add(name_nproc, *e.n_proc_per_node);
  if (e.rdzv_id) b.add("PET_RDZV_ID", *e.rdzv_id);
  if (!e.rdzv_conf.empty()) {
    std::vector<std::string> parts;
    for (const auto& [key, value] : e.rdzv_conf) parts.push_back(key + "=" + value);
    b.add("PET_RDZV_CONF", util::join(parts, ","));
  }
  if (e.standalone) b.add("PET_STANDALONE", "");
  return {};
}

Expected<std::vector<EnvVar>> operator_env(const JobSpec& job, const std::string& type, int index,
                                           const Release& release) {
  Builder b;
  const ReplicaSpec* master = job.find("Master");
  const int n = job.total_replicas();
  const std::string master_addr = replica_name(job.name, "master", 0);
  if (!release.at_least(4)) {
    // v1.3 SetPodEnv reads the Master's port unconditionally: without a Master no pod is created.
    if (master == nullptr) {
      return make_error(
          ErrorCode::usage,
          "operator v1.3.0 creates no pods for a job without a Master replica (it requires one)");
    }
    if (type == "Master" && index != 0) {
      return make_error(ErrorCode::usage,
                        "operator v1.3.0 fails the job: there should be only a single master "
                        "with index=0");
    }
    b.add("MASTER_PORT", master->port);
    b.add("MASTER_ADDR", type == "Master" ? std::string("localhost") : master_addr);
    b.add("WORLD_SIZE", n);
    b.add("RANK", type == "Master" ? 0 : index + 1);
    b.add("PYTHONUNBUFFERED", "0");
    return std::move(b.env);
  }
  const bool v17 = release.at_least(7);
  const bool v18 = release.at_least(8);
  b.add("PYTHONUNBUFFERED", v17 ? "1" : "0");
  if (master != nullptr) {
    const int rank = operator_rank(type, index);
    b.add("MASTER_PORT", master->port);
    if (v17) b.add("PET_MASTER_PORT", master->port);
    b.add("MASTER_ADDR", master_addr);
    if (v17) b.add("PET_MASTER_ADDR", master_addr);
    b.add("WORLD_SIZE", v17 ? n * nproc_int(job) : n);
    b.add("RANK", rank);
    if (v17 && !v18) {
      // v1.7.0 dereferences spec.nprocPerNode here without a nil check.
      if (!job.nproc_per_node_defaulted) {
        return make_error(ErrorCode::usage,
                          "operator v1.7.0 crashes on this job: spec.nprocPerNode is unset while "
                          "spec.elasticPolicy.nProcPerNode is set");
      }
      b.add("PET_NPROC_PER_NODE", *job.nproc_per_node_defaulted);
    }
    if (v17) b.add("PET_NODE_RANK", rank);
  }
  if (v18 && job.nproc_per_node_defaulted) b.add("PET_NPROC_PER_NODE", *job.nproc_per_node_defaulted);
  if (job.elastic) {
    auto ok = add_elastic(b, job, replica_name(job.name, "worker", 0),
                          release.at_least(5) ? "PET_NPROC_PER_NODE" : "PET_N_PROC_PER_NODE");
    if (!ok) return ok.error();
  } else if (v17) {
    b.add("PET_NNODES", n);
  }
  return std::move(b.env);
}

/// Our styles: rank 0 is the Master if there is one, else Worker 0; ranks follow the plan order.
Expected<std::vector<EnvVar>> style_env(const JobSpec& job, const std::string& type, int index,
                                        StyleKind kind) {
  const ReplicaSpec& first = job.replica_specs.front();
  const std::string addr = replica_name(job.name, first.type, 0);
  const int port = first.port;
  const int n = job.total_replicas();
  int rank = index;
  for (const auto& r : job.replica_specs) {
    if (r.type == type) break;
    rank += r.replicas;
  }
  const std::string nproc = job.nproc_per_node ? *job.nproc_per_node
                            : job.elastic && job.elastic->n_proc_per_node
                                ? std::to_string(*job.elastic->n_proc_per_node)
                                : std::string("auto");
  Builder b;
  b.add("PYTHONUNBUFFERED", "1");
  b.add("MASTER_ADDR", addr);
  b.add("MASTER_PORT", port);
  b.add("RANK", rank);
  b.add("WORLD_SIZE", n);
  if (kind == StyleKind::legacy) return std::move(b.env);
  if (kind == StyleKind::worker_only) {
    b.add("NODE_RANK", rank);
    b.add("NODE_WORLD_SIZE", n);
    b.add("LOCAL_RANK", 0);
    b.add("LOCAL_WORLD_SIZE", 1);
  }
  b.add("PET_MASTER_ADDR", addr);
  b.add("PET_MASTER_PORT", port);
  b.add("PET_NODE_RANK", rank);
  if (job.elastic) {
    auto ok = add_elastic(b, job, addr, "PET_NPROC_PER_NODE");
    if (!ok) return ok.error();
    // add_elastic put the deprecated per-node count in the block; the spec value wins here.
    if (!job.elastic->n_proc_per_node) b.add("PET_NPROC_PER_NODE", nproc);
  } else {
    b.add("PET_NNODES", n);
    b.add("PET_NPROC_PER_NODE", nproc);
  }
  return std::move(b.env);
}

std::vector<EnvVar> user_env_of(const json& job, const ReplicaSpec& spec) {
  std::vector<EnvVar> out;
  const json* containers = nullptr;
  try {
    containers =
        &job.at("spec").at("pytorchReplicaSpecs").at(spec.key).at("template").at("spec").at("containers");
  } catch (const json::exception&) {
    return out;
  }
  if (!containers->is_array()) return out;
  for (const auto& c : *containers) {
    if (!c.is_object() || c.value("name", json()) != k_container_name) continue;
    const auto env = c.find("env");
    if (env == c.end() || !env->is_array()) break;
    for (const auto& e : *env) {
      if (!e.is_object() || !e.contains("name") || !e["name"].is_string()) continue;
      const auto v = e.find("value");
      out.push_back(
          {e["name"].get<std::string>(), v != e.end() && v->is_string() ? v->get<std::string>() : ""});
    }
    break;
  }
  return out;
}

std::optional<int> rank_in(const std::vector<EnvVar>& env) {
  for (const auto& v : env) {
    if (v.name != "RANK") continue;
    int r = 0;
    const auto [ptr, ec] = std::from_chars(v.value.data(), v.value.data() + v.value.size(), r);
    if (ec == std::errc() && ptr == v.value.data() + v.value.size()) return r;
  }
  return std::nullopt;
}

Expected<std::vector<ReplicaPodPlan>> plan(const JobSpec& job, const EnvStyle& style, const json* raw) {
  std::vector<ReplicaPodPlan> out;
  for (const auto& spec : job.replica_specs) {
    for (int i = 0; i < spec.replicas; ++i) {
      auto env = replica_env(job, spec.type, i, style);
      if (!env) return env.error();
      ReplicaPodPlan p;
      p.name = replica_name(job.name, spec.type, i);
      p.replica_type = spec.type;
      p.index = i;
      p.rank = rank_in(*env);
      p.service = service_name(job.name, spec.type, i);
      p.env = std::move(*env);
      if (raw != nullptr) p.user_env = user_env_of(*raw, spec);
      out.push_back(std::move(p));
    }
  }
  return out;
}

}  // namespace

Expected<std::vector<EnvVar>> replica_env(const JobSpec& job, const std::string& replica_type, int index,
                                          const EnvStyle& style) {
  if (job.replica_specs.empty()) return make_error(ErrorCode::usage, "spec.pytorchReplicaSpecs: required");
  if (style.is_operator()) return operator_env(job, replica_type, index, style.release);
  return style_env(job, replica_type, index, style.kind);
}

Expected<std::vector<ReplicaPodPlan>> plan_replica_pods(const JobSpec& job, const EnvStyle& style) {
  return plan(job, style, nullptr);
}

Expected<std::vector<ReplicaPodPlan>> plan_replica_pods(const json& job, const EnvStyle& style) {
  auto spec = parse_job(job);
  if (!spec) return spec.error();
  return plan(*spec, style, &job);
}

}  // namespace kpt::model::pytorchjob
