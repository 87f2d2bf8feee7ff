#pragma once

#include "util/diagnostic.hpp"
#include "yaml/manifest_reader.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>

namespace kpt::schema::test {

/// The one document of `yaml`, read with the real reader so positions are real.
inline yaml::Document read_one(const std::string& yaml, const std::string& name = "job.yaml") {
  auto result = yaml::read_manifests(name, std::make_shared<const std::string>(yaml));
  EXPECT_TRUE(result.findings.empty()) << "fixture has reader findings: " << result.findings.front().message;
  EXPECT_EQ(result.documents.size(), 1u);
  if (result.documents.empty()) return {};
  return std::move(result.documents.front());
}

/// "line:col severity rule: message | hint" of a finding, so a whole finding fits one assertion.
inline std::string show(const Diagnostic& d) {
  std::ostringstream out;
  out << d.location.line << ":" << d.location.col << " "
      << (d.severity == Severity::error     ? "error"
          : d.severity == Severity::warning ? "warning"
                                            : "info")
      << " " << d.field_path << " [" << d.rule_id << "]: " << d.message;
  if (!d.hint.empty()) out << " | hint: " << d.hint;
  return out.str();
}

inline std::vector<std::string> show_all(const Diagnostics& ds) {
  std::vector<std::string> out;
  for (const auto& d : ds) out.push_back(show(d));
  return out;
}

/// A valid Master + Worker job; tests replace parts of it.
inline std::string master_worker_job(const std::string& name = "mnist", int workers = 2) {
  return "apiVersion: kubeflow.org/v1\n"
         "kind: PyTorchJob\n"
         "metadata:\n"
         "  name: " +
         name +
         "\n"
         "spec:\n"
         "  runPolicy:\n"
         "    cleanPodPolicy: Running\n"
         "  pytorchReplicaSpecs:\n"
         "    Master:\n"
         "      replicas: 1\n"
         "      template:\n"
         "        spec:\n"
         "          containers:\n"
         "          - name: pytorch\n"
         "            image: docker.io/kubeflowkatib/pytorch-mnist:v1beta1-45c5727\n"
         "            command: [python, /opt/mnist.py]\n"
         "    Worker:\n"
         "      replicas: " +
         std::to_string(workers) +
         "\n"
         "      template:\n"
         "        spec:\n"
         "          containers:\n"
         "          - name: pytorch\n"
         "            image: docker.io/kubeflowkatib/pytorch-mnist:v1beta1-45c5727\n"
         "            command: [python, /opt/mnist.py]\n";
}

}  // namespace kpt::schema::test
