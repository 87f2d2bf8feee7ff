#include "model/pytorchjob/release.hpp"
#include "schema/rules/launch_command.hpp"
#include "schema/rules/rules.hpp"
#include "tests/unit/schema/rules_fixtures.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace kpt::schema::rules {
namespace {

using test::read_one;
using test::show_all;

model::pytorchjob::Release rel(const char* text) { return *model::pytorchjob::parse_release(text); }

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string k_worker_only_hint =
    " | hint: add a Master replica (replicas: 1) and set Worker replicas to 1, or set spec.elasticPolicy "
    "(rdzvBackend c10d) and launch with torchrun, or run the job with kubectl pytorch's controller "
    "(worker-only style)";
const std::string k_one_worker_hint =
    " | hint: rename the Worker replica spec to Master, or set spec.elasticPolicy (rdzvBackend c10d) and "
    "launch with torchrun, or run the job with kubectl pytorch's controller (worker-only style)";

TEST(Lints, TheSeedExampleGivesTwoMisplacedFieldsThePlaceholderAndTheWorkerOnlyError) {
  const auto doc =
      read_one(slurp(std::string(KPT_SOURCE_DIR) + "/testdata/mnist-dp.yaml"), "testdata/mnist-dp.yaml");
  const std::vector<std::string> want{
      "6:3 error spec.cleanPodPolicy [lint.misplaced-field]: unknown field 'cleanPodPolicy' (it belongs in "
      "spec.runPolicy) | hint: move it to spec.runPolicy.cleanPodPolicy",
      "7:3 error spec.restartPolicy [lint.misplaced-field]: unknown field 'restartPolicy' (it belongs in "
      "each "
      "replica spec) | hint: move it to spec.pytorchReplicaSpecs.Worker.restartPolicy",
      "16:13 error spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].command "
      "[lint.worker-only-no-master-env]: worker-only job: operator v1.9.4 injects no MASTER_ADDR, "
      "MASTER_PORT, "
      "RANK or WORLD_SIZE without a Master, so 'python mnist.py' fails in init_process_group(\"env://\"): "
      "MASTER_ADDR not set" +
          k_worker_only_hint,
      "15:20 warning spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].image "
      "[lint.image-placeholder]: "
      "image 'YOUR-IMAGE' looks like a placeholder | hint: replace it with the image that holds your "
      "training "
      "code, pinned by a version tag or digest",
  };
  EXPECT_EQ(show_all(check_lints(doc, RuleOptions{})), want);
  EXPECT_TRUE(check_operator_rules(doc, rel("v1.9.4")).empty());
}

struct Case {
  const char* name;
  std::string yaml;
  std::vector<std::string> want;
  const char* release = "v1.9.4";
  bool strict = true;
};

std::string job(const std::string& spec_body, const std::string& name = "job") {
  return "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: " + name + "\nspec:\n" +
         spec_body;
}

/// A Worker replica spec (lines 7-14 after "  pytorchReplicaSpecs:" on line 6) with `command` on line 14.
std::string worker(const std::string& command, int replicas = 2,
                   const std::string& image = "repo/train:1.0") {
  return "    Worker:\n"
         "      replicas: " +
         std::to_string(replicas) +
         "\n"
         "      template:\n"
         "        spec:\n"
         "          containers:\n"
         "          - name: pytorch\n"
         "            image: " +
         image + "\n" + (command.empty() ? "" : "            command: " + command + "\n");
}

TEST(Lints, WorkerOnlyJobsWithoutMasterEnv) {
  const std::string msg =
      "worker-only job: operator v1.9.4 injects no MASTER_ADDR, MASTER_PORT, RANK or WORLD_SIZE "
      "without a Master, so ";
  const std::string tail = " in init_process_group(\"env://\"): MASTER_ADDR not set" + k_worker_only_hint;
  const std::string cmd_path = "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].command";
  const std::vector<Case> cases{
      {"torchrun with a rendezvous endpoint reads the PET_* variables",
       job("  pytorchReplicaSpecs:\n" + worker("[torchrun, --rdzv-endpoint=job-worker-0:29400, train.py]")),
       {}},
      {"torchrun with elasticPolicy gets PET_RDZV_ENDPOINT",
       job("  elasticPolicy:\n    rdzvBackend: c10d\n  pytorchReplicaSpecs:\n" +
           worker("[torchrun, train.py]")),
       {}},
      {"torchrun alone has no rendezvous in a worker-only job",
       job("  pytorchReplicaSpecs:\n" + worker("[torchrun, train.py]")),
       {"14:13 warning " + cmd_path +
        " [lint.worker-only-no-master-env]: worker-only job without elasticPolicy: "
        "operator v1.9.4 injects no PET_MASTER_ADDR or PET_NODE_RANK, so torchrun on every pod takes node "
        "rank 0 "
        "and rendezvous at 127.0.0.1 and the pods never form one job | hint: add a Master replica (replicas: "
        "1), "
        "or set spec.elasticPolicy (rdzvBackend c10d), or pass --rdzv-endpoint and --node-rank to torchrun"}},
      {"python -m torch.distributed.run is torchrun",
       job("  pytorchReplicaSpecs:\n" +
           worker("[python3, -m, torch.distributed.run, --node_rank=$(RANK), t.py]")),
       {}},
      {"a shell line that runs python is visibly python",
       job("  pytorchReplicaSpecs:\n" + worker("[sh, -c, \"cd /src && python3 -u train.py --epochs 3\"]")),
       {"14:13 error " + cmd_path + " [lint.worker-only-no-master-env]: " + msg + "'python3 train.py' fails" +
        tail}},
      {"no command: the image decides, so a warning",
       job("  pytorchReplicaSpecs:\n" + worker("")),
       {"12:13 warning spec.pytorchReplicaSpecs.Worker.template.spec.containers[0] "
        "[lint.worker-only-no-master-env]: " +
        msg + "a script that calls it fails" + tail}},
      {"one worker may not be distributed at all, so a warning",
       job("  pytorchReplicaSpecs:\n" + worker("[python, train.py]", 1)),
       {"14:13 warning " + cmd_path + " [lint.worker-only-no-master-env]: " + msg +
        "'python train.py' fails in init_process_group(\"env://\"): MASTER_ADDR not set" +
        k_one_worker_hint}},
      {"with elasticPolicy the fix is torchrun, which reads PET_RDZV_*",
       job("  elasticPolicy:\n    rdzvBackend: c10d\n  pytorchReplicaSpecs:\n" +
           worker("[python, train.py]")),
       {"16:13 error " + cmd_path + " [lint.worker-only-no-master-env]: " + msg +
        "'python train.py' fails in init_process_group(\"env://\"): MASTER_ADDR not set | hint: add a Master "
        "replica (replicas: 1) and set Worker replicas to 1, or launch with torchrun (it reads the "
        "PET_RDZV_* "
        "variables the elastic block sets), or run the job with kubectl pytorch's controller (worker-only "
        "style)"}},
      {"v1.3 has no worker-only jobs (operator.master-required says so)",
       job("  pytorchReplicaSpecs:\n" + worker("[python, train.py]")),
       {},
       "v1.3.0"},
      {"a Master-based job gets the env", test::master_worker_job(), {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    RuleOptions opts;
    opts.release = rel(c.release);
    opts.disabled = {"lint.image-placeholder", "lint.image-unpinned"};
    EXPECT_EQ(show_all(check_lints(read_one(c.yaml), opts)), c.want);
  }
}

TEST(Lints, JobLevelLints) {
  const std::string long_name(55, 'a');
  const std::vector<Case> cases{
      {"pod template restartPolicy is overridden",
       job("  pytorchReplicaSpecs:\n" + worker("[torchrun, t.py]") + "          restartPolicy: Never\n"),
       {"15:26 warning spec.pytorchReplicaSpecs.Worker.template.spec.restartPolicy "
        "[lint.template-restart-policy]: "
        "the operator overrides the pod template's restartPolicy with the replica's 'OnFailure' (the "
        "default) and "
        "records a SetPodTemplateRestartPolicy warning event | hint: set spec.pytorchReplicaSpecs.Worker."
        "restartPolicy instead and remove this one"}},
      {"older releases name the event differently",
       job("  pytorchReplicaSpecs:\n" + worker("[torchrun, t.py]") + "          restartPolicy: Never\n"),
       {"15:26 warning spec.pytorchReplicaSpecs.Worker.template.spec.restartPolicy "
        "[lint.template-restart-policy]: "
        "the operator overrides the pod template's restartPolicy with the replica's 'OnFailure' (the "
        "default) and "
        "records a SettedPodTemplateRestartPolicy warning event | hint: set spec.pytorchReplicaSpecs.Worker."
        "restartPolicy instead and remove this one"},
       "v1.7.0"},
      {"a Master job with the default cleanPodPolicy leaves workers running",
       job("  pytorchReplicaSpecs:\n    Master:\n      replicas: 1\n" + worker("[python, t.py]")),
       {"7:5 warning spec.pytorchReplicaSpecs.Master [lint.clean-pod-policy-none]: the job succeeds as soon "
        "as the "
        "Master succeeds, and with cleanPodPolicy 'None' (the default) the Worker pods keep running "
        "(kubeflow/trainer#1982) | hint: set spec.runPolicy.cleanPodPolicy: Running (or All) so the "
        "remaining pods "
        "are deleted when the job ends"}},
      {"zero workers loop before v1.9",
       job("  pytorchReplicaSpecs:\n" + worker("[torchrun, t.py]", 0)),
       {"8:17 error spec.pytorchReplicaSpecs.Worker.replicas [lint.zero-workers]: Worker replicas '0' makes "
        "operator "
        "v1.8.1 create and delete a worker pod in an endless loop (kubeflow/trainer#1709) | hint: remove the "
        "Worker "
        "replica spec for a Master-only job, or set replicas to 1 or more"},
       "v1.8.1"},
      {"zero workers on v1.9 are the operator's rule, not a lint",
       job("  pytorchReplicaSpecs:\n" + worker("[torchrun, t.py]", 0)),
       {}},
      {"a long name leaves no room for -worker-<i>",
       job("  pytorchReplicaSpecs:\n" + worker("[torchrun, t.py]", 10), long_name),
       {"4:9 error metadata.name [lint.long-name]: the operator names a pod and its Service '" + long_name +
        "-worker-9', longer than 63 characters, so the Service cannot be created | hint: shorten the job "
        "name to at "
        "most 54 characters"}},
      {"nprocPerNode must be auto, cpu, gpu or a number",
       job("  nprocPerNode: Auto\n  pytorchReplicaSpecs:\n" + worker("[torchrun, t.py]")),
       {"6:17 warning spec.nprocPerNode [lint.nproc-per-node]: nprocPerNode 'Auto' is not 'auto', 'cpu', "
        "'gpu' or a "
        "positive integer: the operator counts 1 process per node in WORLD_SIZE and passes it to torchrun as "
        "PET_NPROC_PER_NODE, which torchrun rejects | hint: did you mean 'auto'?"}},
      {"nprocPerNode as a number is fine",
       job("  nprocPerNode: \"8\"\n  pytorchReplicaSpecs:\n" + worker("[torchrun, t.py]")),
       {}},
      {"latest and untagged images are unpinned",
       job("  pytorchReplicaSpecs:\n" + worker("[torchrun, t.py]", 2, "pytorch/pytorch:latest")),
       {"13:20 warning spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].image "
        "[lint.image-unpinned]: "
        "image 'pytorch/pytorch:latest' uses the ':latest' tag, and the pods of one job may run different "
        "images | "
        "hint: pin a version tag or a digest (name@sha256:...)"}},
      {"a registry port is not a tag",
       job("  pytorchReplicaSpecs:\n" + worker("[torchrun, t.py]", 2, "localhost:5000/train")),
       {"13:20 warning spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].image "
        "[lint.image-unpinned]: "
        "image 'localhost:5000/train' has no tag, so ':latest' is pulled, and the pods of one job may run "
        "different images | hint: pin a version tag or a digest (name@sha256:...)"}},
      {"a digest pins the image",
       job("  pytorchReplicaSpecs:\n" + worker("[torchrun, t.py]", 2, "repo/train@sha256:0123abcd")),
       {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    RuleOptions opts;
    opts.release = rel(c.release);
    opts.disabled = {"lint.worker-only-no-master-env"};
    EXPECT_EQ(show_all(check_lints(read_one(c.yaml), opts)), c.want);
  }
}

TEST(Lints, RestartingOnFailureWithoutABackoffLimitRestartsForever) {
  const auto with_policy = [](const std::string& policy, const std::string& run_policy = "") {
    return job(run_policy +
               "  pytorchReplicaSpecs:\n    Worker:\n      replicas: 2\n      restartPolicy: " + policy +
               "\n      template:\n        spec:\n          containers:\n          - name: pytorch\n"
               "            image: repo/train:1.0\n            command: [torchrun, t.py]\n");
  };
  const std::string hint =
      " | hint: set spec.runPolicy.backoffLimit (e.g. 3) so that the job fails after that many restarts";
  const std::vector<Case> cases{
      {"OnFailure",
       with_policy("OnFailure"),
       {"9:22 warning spec.pytorchReplicaSpecs.Worker.restartPolicy [lint.no-backoff-limit]: restartPolicy "
        "'OnFailure' restarts a failing pod again and again while spec.runPolicy.backoffLimit is not set: a "
        "typo "
        "keeps the job Running and restarting" +
        hint}},
      {"ExitCode, which the operator's backoffLimit does not even count",
       with_policy("ExitCode"),
       {"9:22 warning spec.pytorchReplicaSpecs.Worker.restartPolicy [lint.no-backoff-limit]: restartPolicy "
        "'ExitCode' recreates a pod that exits with 128 or more (137: killed, often out of memory) again and "
        "again while spec.runPolicy.backoffLimit is not set" +
        hint +
        "; the Training Operator does not count ExitCode re-creations against it (kubeflow/trainer#2045), so "
        "bound the job with spec.runPolicy.activeDeadlineSeconds too"}},
      {"a backoffLimit ends it", with_policy("OnFailure", "  runPolicy:\n    backoffLimit: 3\n"), {}},
      {"Never does not restart", with_policy("Never"), {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    RuleOptions opts;
    opts.release = rel(c.release);
    opts.disabled = {"lint.worker-only-no-master-env"};
    EXPECT_EQ(show_all(check_lints(read_one(c.yaml), opts)), c.want);
  }
}

TEST(Lints, MisplacedFieldsNameWhereTheyBelong) {
  const std::string two_types =
      "  restartPolicy: Never\n  pytorchReplicaSpecs:\n    Master:\n      replicas: 1\n" +
      worker("[torchrun, t.py]");
  const std::vector<Case> cases{
      {"a runPolicy field at spec level",
       job("  backoffLimit: 3\n  pytorchReplicaSpecs:\n" + worker("[torchrun, t.py]")),
       {"6:3 error spec.backoffLimit [lint.misplaced-field]: unknown field 'backoffLimit' (it belongs in "
        "spec.runPolicy) | hint: move it to spec.runPolicy.backoffLimit"}},
      {"without strict unknown fields it is a warning",
       job("  backoffLimit: 3\n  pytorchReplicaSpecs:\n" + worker("[torchrun, t.py]")),
       {"6:3 warning spec.backoffLimit [lint.misplaced-field]: unknown field 'backoffLimit' (it belongs in "
        "spec.runPolicy) | hint: move it to spec.runPolicy.backoffLimit"},
       "v1.9.4",
       false},
      {"a replica field with two replica types",
       job(two_types),
       {"6:3 error spec.restartPolicy [lint.misplaced-field]: unknown field 'restartPolicy' (it belongs in "
        "each "
        "replica spec) | hint: move it into each replica spec: spec.pytorchReplicaSpecs.Master.restartPolicy "
        "and "
        "spec.pytorchReplicaSpecs.Worker.restartPolicy"}},
      {"a replica type directly under spec",
       job("  Worker:\n    replicas: 1\n"),
       {"6:3 error spec.Worker [lint.misplaced-field]: unknown field 'Worker' (it belongs in "
        "spec.pytorchReplicaSpecs) | hint: move it to spec.pytorchReplicaSpecs.Worker"}},
      {"a scheduling field in runPolicy",
       job("  runPolicy:\n    queue: team-a\n  pytorchReplicaSpecs:\n" + worker("[torchrun, t.py]")),
       {"7:5 error spec.runPolicy.queue [lint.misplaced-field]: unknown field 'queue' (it belongs in "
        "spec.runPolicy.schedulingPolicy) | hint: move it to spec.runPolicy.schedulingPolicy.queue"}},
      {"containers directly in the replica spec",
       job("  pytorchReplicaSpecs:\n    Worker:\n      replicas: 1\n      containers: []\n"),
       {"9:7 error spec.pytorchReplicaSpecs.Worker.containers [lint.misplaced-field]: unknown field "
        "'containers' (it "
        "belongs in spec.pytorchReplicaSpecs.Worker.template.spec) | hint: move it to "
        "spec.pytorchReplicaSpecs.Worker.template.spec.containers"}},
      {"replicas inside the pod spec",
       job("  pytorchReplicaSpecs:\n" + worker("[torchrun, t.py]") + "          replicas: 3\n"),
       {"15:11 error spec.pytorchReplicaSpecs.Worker.template.spec.replicas [lint.misplaced-field]: unknown "
        "field "
        "'replicas' (it belongs in spec.pytorchReplicaSpecs.Worker) | hint: move it to "
        "spec.pytorchReplicaSpecs.Worker.replicas"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    RuleOptions opts;
    opts.release = rel(c.release);
    opts.strict = c.strict;
    opts.disabled = {"lint.clean-pod-policy-none", "lint.worker-only-no-master-env"};
    EXPECT_EQ(show_all(check_lints(read_one(c.yaml), opts)), c.want);
  }
}

TEST(Lints, DisabledLintsAreLeftOut) {
  const auto doc = read_one(slurp(std::string(KPT_SOURCE_DIR) + "/testdata/mnist-dp.yaml"));
  RuleOptions opts;
  opts.disabled = {"lint.misplaced-field", "lint.worker-only-no-master-env"};
  const auto found = check_lints(doc, opts);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rule_id, "lint.image-placeholder");
  EXPECT_TRUE(is_lint_id("lint.zero-workers"));
  EXPECT_FALSE(is_lint_id("operator.job-name"));
}

TEST(Lints, AnUnpinnedImageAndAPlaceholderAreTurnedOffApart) {
  const auto doc =
      read_one(job("  pytorchReplicaSpecs:\n" + worker("[torchrun, t.py]", 2, "pytorch/pytorch:latest")));
  const auto image_ids = [&](const std::set<std::string, std::less<>>& disabled) {
    RuleOptions opts;
    opts.disabled = disabled;
    std::vector<std::string> ids;
    for (const auto& d : check_lints(doc, opts)) {
      if (d.rule_id.rfind("lint.image-", 0) == 0) ids.push_back(d.rule_id);
    }
    return ids;
  };
  EXPECT_EQ(image_ids({"lint.image-placeholder"}), std::vector<std::string>{"lint.image-unpinned"});
  EXPECT_TRUE(image_ids({"lint.image-unpinned"}).empty());
  EXPECT_TRUE(is_lint_id("lint.image-unpinned"));
}

TEST(LaunchCommand, ClassifiesHowTheContainerStartsPyTorch) {
  struct L {
    std::vector<std::string> argv;
    Launcher want;
    std::string shown;
  };
  const std::vector<L> cases{
      {{"torchrun", "--nproc-per-node=2", "train.py"}, Launcher::torchrun, "torchrun"},
      {{"/usr/local/bin/torchrun", "train.py"}, Launcher::torchrun, "/usr/local/bin/torchrun"},
      {{"python", "-m", "torch.distributed.launch", "t.py"}, Launcher::torchrun, "torch.distributed.launch"},
      {{"python", "mnist.py"}, Launcher::plain_python, "python mnist.py"},
      {{"/usr/bin/python3.11", "-u", "-O", "/app/train.py"},
       Launcher::plain_python,
       "/usr/bin/python3.11 /app/train.py"},
      {{"python", "-m", "trainer.main"}, Launcher::plain_python, "python -m trainer.main"},
      {{"bash", "-c", "pip install x; python train.py"}, Launcher::plain_python, "python train.py"},
      {{"python", "-c", "import train"}, Launcher::unknown, ""},
      {{"./run.sh"}, Launcher::unknown, ""},
      {{}, Launcher::unknown, ""},
      {{"pythonic", "x.py"}, Launcher::unknown, ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.argv.empty() ? "(empty)" : c.argv.front());
    const auto got = classify_launch(c.argv);
    EXPECT_EQ(got.launcher, c.want);
    EXPECT_EQ(got.shown, c.shown);
  }
}

// With a Master, v1.7+ counts nprocPerNode processes in WORLD_SIZE but gives RANK per pod.
TEST(Lints, ANumericNprocPerNodeNeedsTorchrunToStartTheProcesses) {
  const auto master_job = [](const std::string& command, const std::string& nproc) {
    std::string master = worker(command, 1);
    master.replace(master.find("Worker"), 6, "Master");
    return job("  nprocPerNode: \"" + nproc + "\"\n  pytorchReplicaSpecs:\n" + master + worker(command, 1));
  };
  RuleOptions opts;
  opts.release = rel("v1.9.4");
  opts.disabled = {"lint.image-placeholder", "lint.image-unpinned", "lint.clean-pod-policy-none"};
  EXPECT_EQ(
      show_all(check_lints(read_one(master_job("[python, train.py]", "2")), opts)),
      std::vector<std::string>{
          "15:13 error spec.pytorchReplicaSpecs.Master.template.spec.containers[0].command "
          "[lint.nproc-rank-is-node-rank]: nprocPerNode is '2': WORLD_SIZE=4 counts processes (2x2) but "
          "RANK is the pod's rank, so 'python train.py' waits in init_process_group(\"env://\") for 4 "
          "ranks that never come | hint: launch with torchrun, which starts 2 processes per pod and sets "
          "RANK, LOCAL_RANK and WORLD_SIZE for each, or set spec.nprocPerNode: \"1\""});
  EXPECT_TRUE(check_lints(read_one(master_job("[torchrun, train.py]", "2")), opts).empty());
  EXPECT_TRUE(check_lints(read_one(master_job("[python, train.py]", "1")), opts).empty());
  opts.release = rel("v1.6.0");  // WORLD_SIZE counts pods before v1.7
  EXPECT_TRUE(check_lints(read_one(master_job("[python, train.py]", "2")), opts).empty());
}

}  // namespace
}  // namespace kpt::schema::rules
