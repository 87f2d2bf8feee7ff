#include "apiserver/protobuf_body.hpp"

#include "apiserver/proto/k8s_core.pb.h"
#include "apiserver/proto/k8s_meta.pb.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::apiserver {
namespace {

using nlohmann::json;

/// The body kubectl sends: "k8s\0" then runtime.Unknown around the object's bytes.
std::string envelope(const std::string& api_version, const std::string& kind, const std::string& raw) {
  k8s::Unknown unknown;
  unknown.mutable_typemeta()->set_apiversion(api_version);
  unknown.mutable_typemeta()->set_kind(kind);
  unknown.set_raw(raw);
  return std::string("k8s\0", 4) + unknown.SerializeAsString();
}

TEST(ProtobufBody, DecodesDeleteOptionsFromTheirWireFieldNumbers) {
  // meta/v1 DeleteOptions by hand, field by field (k8s.io/apimachinery pkg/apis/meta/v1/generated.proto):
  // gracePeriodSeconds = 1 (0), preconditions = 2 {uid = 1 "u"}, orphanDependents = 3 (false),
  // propagationPolicy = 4 "Foreground", dryRun = 5 ["All"].
  const std::string raw = std::string("\x08\x00", 2) + "\x12\x03\x0a\x01u" + std::string("\x18\x00", 2) +
                          "\x22\x0a"
                          "Foreground"
                          "\x2a\x03"
                          "All";
  auto out = decode_protobuf_delete_options(envelope("v1", "DeleteOptions", raw));
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out.value(), json::parse(R"({"apiVersion":"v1","kind":"DeleteOptions","gracePeriodSeconds":0,
      "preconditions":{"uid":"u"},"orphanDependents":false,"propagationPolicy":"Foreground","dryRun":["All"]})"));
}

TEST(ProtobufBody, DeleteOptionsOfAnyApiVersionDecodeAndAnotherKindIsLeftToTheCaller) {
  k8s::DeleteOptions opts;
  opts.set_propagationpolicy("Orphan");
  for (const char* api_version : {"v1", "meta.k8s.io/v1", "apps/v1"}) {
    SCOPED_TRACE(api_version);
    auto out =
        decode_protobuf_delete_options(envelope(api_version, "DeleteOptions", opts.SerializeAsString()));
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_EQ(out.value()["propagationPolicy"], "Orphan");
  }
  auto pod = decode_protobuf_delete_options(envelope("v1", "Pod", "\x0a\x00"));
  ASSERT_TRUE(pod) << pod.error().message;
  EXPECT_EQ(pod.value(), json::parse(R"({"apiVersion":"v1","kind":"Pod"})"));
}

TEST(ProtobufBody, MalformedDeleteOptionsAreABadRequestAndUnknownFieldsAreRefused) {
  auto truncated = decode_protobuf_delete_options(envelope("v1", "DeleteOptions",
                                                           "\x22\x0a"
                                                           "Fore"));
  ASSERT_FALSE(truncated);
  EXPECT_EQ(truncated.error().http_status, 400);
  EXPECT_EQ(
      truncated.error().message,
      "the protobuf body is not a valid Kubernetes object: the DeleteOptions does not parse, or nests deeper "
      "than 32 levels");
  auto unknown = decode_protobuf_delete_options(envelope("v1", "DeleteOptions", "\x38\x01"));  // field 7
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().http_status, 415);
  EXPECT_EQ(
      unknown.error().message,
      "the protobuf body cannot be read by this server: field number 7 of DeleteOptions is not known here "
      "(send the object as application/json, e.g. with 'kubectl create -f')");
  auto no_magic = decode_protobuf_delete_options("{}");
  ASSERT_FALSE(no_magic);
  EXPECT_EQ(no_magic.error().http_status, 400);
}

TEST(ProtobufBody, DecodesAConfigMapAsItsJsonForm) {
  k8s::ConfigMap cm;
  cm.mutable_metadata()->set_name("settings");
  (*cm.mutable_metadata()->mutable_labels())["app"] = "demo";
  (*cm.mutable_data())["mode"] = "fast";
  (*cm.mutable_binarydata())["blob"] = std::string("\x01\x02", 2);
  auto out = decode_protobuf_body(envelope("v1", "ConfigMap", cm.SerializeAsString()));
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out.value(), json::parse(R"({"apiVersion":"v1","kind":"ConfigMap",
      "metadata":{"name":"settings","labels":{"app":"demo"}},
      "data":{"mode":"fast"},"binaryData":{"blob":"AQI="}})"));
}

TEST(ProtobufBody, DecodesASecretsBytesAsBase64) {
  k8s::Secret secret;
  secret.mutable_metadata()->set_name("token");
  (*secret.mutable_data())["password"] = "s3cret";
  secret.set_type("Opaque");
  auto out = decode_protobuf_body(envelope("v1", "Secret", secret.SerializeAsString()));
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out.value()["data"], json::parse(R"({"password":"czNjcmV0"})"));
  EXPECT_EQ(out.value()["type"], "Opaque");
}

TEST(ProtobufBody, RefusesAnUnknownFieldInsteadOfDroppingIt) {
  k8s::ConfigMap cm;
  cm.mutable_metadata()->set_name("settings");
  std::string raw = cm.SerializeAsString();
  raw += std::string("\xa2\x06\x01x", 4);  // field 100, length-delimited "x"
  auto out = decode_protobuf_body(envelope("v1", "ConfigMap", raw));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().http_status, 415);
  EXPECT_EQ(
      out.error().message,
      "the protobuf body cannot be read by this server: field number 100 of ConfigMap is not known here "
      "(send the object as application/json, e.g. with 'kubectl create -f')");
}

TEST(ProtobufBody, RefusesAKindItDoesNotDecode) {
  auto out = decode_protobuf_body(envelope("v1", "Node", ""));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().http_status, 415);
  EXPECT_EQ(
      out.error().message,
      "the protobuf body cannot be read by this server: kind 'Node' of 'v1' is not one it decodes (v1 "
      "Namespace, v1 ConfigMap, v1 Secret, v1 Service, v1 ServiceAccount, v1 Pod, apps/v1 Deployment, "
      "batch/v1 Job, batch/v1 CronJob) (send the object as application/json, e.g. with 'kubectl create -f')");
}

TEST(ProtobufBody, MalformedBytesAreABadRequest) {
  auto no_magic = decode_protobuf_body("{\"kind\":\"ConfigMap\"}");
  ASSERT_FALSE(no_magic);
  EXPECT_EQ(no_magic.error().http_status, 400);
  EXPECT_EQ(no_magic.error().message,
            "the protobuf body is not a valid Kubernetes object: it does not start with the Kubernetes "
            "protobuf magic \"k8s\\x00\"");
  auto truncated = decode_protobuf_body(std::string("k8s\0\x0a\x7f", 6));
  ASSERT_FALSE(truncated);
  EXPECT_EQ(truncated.error().http_status, 400);
  EXPECT_EQ(
      truncated.error().message,
      "the protobuf body is not a valid Kubernetes object: the runtime.Unknown envelope does not parse");
}

TEST(ProtobufBody, BoundsSizeAndNesting) {
  ProtobufLimits limits;
  limits.max_bytes = 16;
  auto big = decode_protobuf_body(std::string(17, 'x'), limits);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().http_status, 413);
  EXPECT_EQ(big.error().message, "the request body is larger than 16 bytes");

  k8s::ConfigMap cm;
  cm.mutable_metadata()->set_name("deep");
  cm.mutable_metadata()->add_ownerreferences()->set_name("owner");  // two levels down
  limits = ProtobufLimits{};
  limits.max_depth = 1;  // enough for the envelope, not for the owner reference
  auto deep = decode_protobuf_body(envelope("v1", "ConfigMap", cm.SerializeAsString()), limits);
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().http_status, 400);
  EXPECT_EQ(
      deep.error().message,
      "the protobuf body is not a valid Kubernetes object: the ConfigMap does not parse, or nests deeper "
      "than 1 levels");
}

}  // namespace
}  // namespace kpt::apiserver
