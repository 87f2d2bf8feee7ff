// Built-in kinds validated as kube-apiserver does: decode errors (400) in the words of its JSON
// decoder, unknown fields by fieldValidation, ValidateObjectMeta's names and the kinds' required
// fields (422), all through the handler with no transport.
#include "apiserver/api_handler.hpp"
#include "apiserver/go_decode_error.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::apiserver {
namespace {

using nlohmann::json;

const std::string k_ns = "/api/v1/namespaces/default/";

class BuiltinValidation : public ::testing::Test {
 protected:
  HttpResponse call(const std::string& method, const std::string& path, const std::string& body,
                    const std::string& field_validation = "Strict",
                    const std::string& content_type = "application/json") {
    HttpRequest req;
    req.method = method;
    req.path = path;
    req.body = body;
    if (!field_validation.empty()) req.query.emplace("fieldValidation", field_validation);
    req.headers["content-type"] = content_type;
    return m_handler.handle(req);
  }
  HttpResponse create(const std::string& collection, const json& obj, const std::string& fv = "Strict") {
    return call("POST", collection, obj.dump(), fv);
  }
  static json status_of(const HttpResponse& r) { return json::parse(r.body); }
  static std::vector<std::string> warnings(const HttpResponse& r) {
    std::vector<std::string> out;
    for (const auto& [k, v] : r.headers) {
      if (k == "Warning") out.push_back(v);
    }
    return out;
  }
  static json pod(const json& containers) {
    return {{"metadata", {{"name", "p"}}}, {"spec", {{"containers", containers}}}};
  }

  Store m_store;
  ResourceRegistry m_registry;
  FaultInjector m_faults;
  ApiHandler m_handler{m_store, m_registry, m_faults};
};

TEST_F(BuiltinValidation, AConfigMapWithANumberInDataIsRefusedAsTheDecoderRefusesIt) {
  const auto r = create(k_ns + "configmaps", {{"metadata", {{"name", "x"}}}, {"data", {{"k", 1}}}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(status_of(r), json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
      "message":"ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string",
      "reason":"BadRequest","code":400})"));
}

// Found by fuzzing (apiserver_request, 90 s): an apply that creates a custom object whose metadata is
// a string threw from the JSON library and ended the server. A built-in's is a decode error, as it was.
TEST_F(BuiltinValidation, AnApplyThatCreatesAnObjectWithAStringMetadataIsAnErrorNotACrash) {
  m_registry.apply_crd(json::parse(R"({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "gadgets.example.org"},
    "spec": {"group": "example.org", "scope": "Namespaced",
      "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
      "versions": [{"name": "v1", "served": true, "storage": true,
        "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}})"));
  auto apply = [this](const std::string& path, const std::string& body) {
    HttpRequest req;
    req.method = "PATCH";
    req.path = path;
    req.body = body;
    req.query.emplace("fieldManager", "test");
    req.headers["content-type"] = "application/apply-patch+yaml";
    return m_handler.handle(req);
  };
  const auto custom = apply("/apis/example.org/v1/namespaces/default/gadgets/g",
                            R"({"apiVersion":"example.org/v1","kind":"Gadget","metadata":"x"})");
  EXPECT_EQ(custom.status, 422) << custom.body;  // as the unstructured decoder leaves it: no name
  EXPECT_EQ(status_of(custom)["details"]["causes"][0]["field"], "metadata.name");
  const auto builtin =
      apply(k_ns + "configmaps/x", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":"x"})");
  EXPECT_EQ(builtin.status, 422);
  EXPECT_EQ(
      status_of(builtin)["message"],
      R"( "" is invalid: patch: Invalid value: "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":\"x\"}": )"
      R"(json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta)");
}

TEST_F(BuiltinValidation, ADecodeErrorNamesTheInnermostStructTheFieldPathAndTheGoType) {
  struct Case {
    const char* name;
    std::string collection;
    json object;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"a port as a string", k_ns + "pods",
       pod(json::parse(R"([{"name":"c","image":"i","ports":[{"containerPort":"80"}]}])")),
       "Pod in version \"v1\" cannot be handled as a Pod: json: cannot unmarshal string into Go struct field "
       "ContainerPort.spec.containers.ports.containerPort of type int32"},
      {"a named string type", k_ns + "pods",
       json::parse(
           R"({"metadata":{"name":"p"},"spec":{"restartPolicy":1,"containers":[{"name":"c","image":"i"}]}})"),
       "Pod in version \"v1\" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field "
       "PodSpec.spec.restartPolicy of type v1.RestartPolicy"},
      {"a list item", k_ns + "pods", pod(json::parse(R"([{"name":"c","image":"i","command":["sh",1]}])")),
       "Pod in version \"v1\" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field "
       "Container.spec.containers.command of type string"},
      {"a fraction for an integer", "/apis/apps/v1/namespaces/default/deployments",
       json::parse(R"({"metadata":{"name":"d"},"spec":{"replicas":1.5}})"),
       "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal number 1.5 "
       "into Go "
       "struct field DeploymentSpec.spec.replicas of type int32"},
      {"a label value", k_ns + "configmaps",
       json::parse(R"({"metadata":{"name":"x","labels":{"app.k8s.io/v":true}}})"),
       "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal bool into Go "
       "struct "
       "field ObjectMeta.metadata.labels of type string"},
      {"a whole struct", k_ns + "services", json::parse(R"({"metadata":{"name":"s"},"spec":[]})"),
       "Service in version \"v1\" cannot be handled as a Service: json: cannot unmarshal array into Go "
       "struct field "
       "Service.spec of type v1.ServiceSpec"},
      {"a quantity", k_ns + "pods",
       pod(json::parse(R"([{"name":"c","image":"i","resources":{"limits":{"cpu":"lots"}}}])")),
       "Pod in version \"v1\" cannot be handled as a Pod: quantities must match the regular expression "
       "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
      {"an int-or-string", k_ns + "services",
       json::parse(R"({"metadata":{"name":"s"},"spec":{"ports":[{"port":80,"targetPort":true}]}})"),
       "Service in version \"v1\" cannot be handled as a Service: json: cannot unmarshal bool into Go struct "
       "field "
       "ServicePort.spec.ports.targetPort of type int32"},
      {"secret bytes", k_ns + "secrets", json::parse(R"({"metadata":{"name":"s"},"data":{"k":7}})"),
       "Secret in version \"v1\" cannot be handled as a Secret: json: cannot unmarshal number into Go struct "
       "field "
       "Secret.data of type []uint8"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto r = create(c.collection, c.object);
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_EQ(status_of(r)["message"], c.message);
  }
}

TEST_F(BuiltinValidation, QuantitiesTakeNumbersWithAFractionAsTheQuantityParserDoes) {
  const auto r = create(k_ns + "pods", pod(json::parse(R"([{"name":"c","image":"i",
      "resources":{"limits":{"cpu":0.5,"memory":"1Gi"}}}])")));
  EXPECT_EQ(r.status, 201) << r.body;
}

TEST_F(BuiltinValidation, MissingRequiredFieldsAreInvalidWithTheRealCauses) {
  const auto r =
      create(k_ns + "pods", pod(json::parse(R"([{"name":"c"},{"image":"i"},{"name":"","image":"j"}])")));
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(status_of(r), json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
      "message":"Pod \"p\" is invalid: [spec.containers[0].image: Required value, spec.containers[1].name: Required value, spec.containers[2].name: Required value]",
      "reason":"Invalid","code":422,"details":{"name":"p","kind":"Pod","causes":[
        {"reason":"FieldValueRequired","message":"Required value","field":"spec.containers[0].image"},
        {"reason":"FieldValueRequired","message":"Required value","field":"spec.containers[1].name"},
        {"reason":"FieldValueRequired","message":"Required value","field":"spec.containers[2].name"}]}})"));
}

TEST_F(BuiltinValidation, AServiceNeedsPortsUnlessItIsHeadlessOrAnExternalName) {
  const auto r =
      create(k_ns + "services", json::parse(R"({"metadata":{"name":"web"},"spec":{"selector":{"a":"b"}}})"));
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(status_of(r)["message"], "Service \"web\" is invalid: spec.ports: Required value");
  EXPECT_EQ(
      status_of(r)["details"]["causes"],
      json::parse(R"([{"reason":"FieldValueRequired","message":"Required value","field":"spec.ports"}])"));
  EXPECT_EQ(create(k_ns + "services", json::parse(R"({"metadata":{"name":"h"},"spec":{"clusterIP":"None"}})"))
                .status,
            201);
  EXPECT_EQ(create(k_ns + "services", json::parse(R"({"metadata":{"name":"e"},"spec":{"type":"ExternalName",
          "externalName":"example.com"}})"))
                .status,
            201);
}

TEST_F(BuiltinValidation, EachKindChecksNamesByItsOwnRule) {
  struct Case {
    std::string collection;
    std::string name;
    std::string message;  ///< empty: accepted
  };
  const std::string label_rule =
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
      "and "
      "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  const std::vector<Case> cases = {
      {"/api/v1/namespaces", "team.a",
       "Namespace \"team.a\" is invalid: metadata.name: Invalid value: \"team.a\": " + label_rule},
      {k_ns + "configmaps", "team.a", ""},
      {k_ns + "services", "1web",
       "Service \"1web\" is invalid: metadata.name: Invalid value: \"1web\": a DNS-1035 label must consist "
       "of lower "
       "case alphanumeric characters or '-', start with an alphabetic character, and end with an "
       "alphanumeric "
       "character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
       "'[a-z]([-a-z0-9]*[a-z0-9])?')"},
      {k_ns + "secrets", "Upper",
       "Secret \"Upper\" is invalid: metadata.name: Invalid value: \"Upper\": a lowercase RFC 1123 subdomain "
       "must "
       "consist of lower case alphanumeric characters, '-' or '.', and must start and end with an "
       "alphanumeric "
       "character (e.g. 'example.com', regex used for validation is "
       "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
      {"/apis/batch/v1/namespaces/default/cronjobs", std::string(53, 'c'),
       "CronJob.batch \"" + std::string(53, 'c') + "\" is invalid: metadata.name: Invalid value: \"" +
           std::string(53, 'c') + "\": must be no more than 52 characters"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.collection + " " + c.name);
    json obj = {{"metadata", {{"name", c.name}}}};
    if (c.collection.find("services") != std::string::npos) obj["spec"] = {{"clusterIP", "None"}};
    if (c.collection.find("cronjobs") != std::string::npos) {
      obj["spec"] = json::parse(R"({"schedule":"* * * * *","jobTemplate":{"spec":{"template":{"spec":{
          "restartPolicy":"OnFailure","containers":[{"name":"c","image":"i"}]}}}}})");
    }
    const auto r = create(c.collection, obj);
    if (c.message.empty()) {
      EXPECT_EQ(r.status, 201) << r.body;
    } else {
      EXPECT_EQ(r.status, 422) << r.body;
      EXPECT_EQ(status_of(r)["message"], c.message);
    }
  }
}

TEST_F(BuiltinValidation,
       LabelsAnnotationsAndConfigKeysAreCheckedAsValidateObjectMetaAndValidateConfigMapDo) {
  const auto r = create(k_ns + "configmaps", json::parse(R"({"metadata":{"name":"x","labels":{"app":"a b"},
      "annotations":{"bad key!":"v"}},"data":{"a b":"v"}})"));
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(status_of(r)["details"]["causes"], json::parse(R"j([
    {"reason":"FieldValueInvalid","field":"metadata.labels","message":"Invalid value: \"a b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"},
    {"reason":"FieldValueInvalid","field":"metadata.annotations","message":"Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"},
    {"reason":"FieldValueInvalid","field":"data[a b]","message":"Invalid value: \"a b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"}])j"));
}

TEST_F(BuiltinValidation, UnknownFieldsAreRefusedWithStrictWarnedWithWarnAndDroppedUnlessRefused) {
  const json deployment =
      json::parse(R"({"metadata":{"name":"d"},"spec":{"replica":2,"selector":{"matchLabels":{"a":"b"}},
      "template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i","imagePullPolice":"Always"}]}}}})");
  const std::string deployments = "/apis/apps/v1/namespaces/default/deployments";
  const auto strict = create(deployments, deployment, "Strict");
  EXPECT_EQ(strict.status, 400);
  EXPECT_EQ(
      status_of(strict)["message"],
      "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: unknown field "
      "\"spec.replica\", unknown field \"spec.template.spec.containers[0].imagePullPolice\"");
  const auto warn = create(deployments, deployment, "Warn");
  ASSERT_EQ(warn.status, 201) << warn.body;
  EXPECT_EQ(warnings(warn),
            (std::vector<std::string>{
                "299 - \"unknown field \\\"spec.replica\\\"\"",
                "299 - \"unknown field \\\"spec.template.spec.containers[0].imagePullPolice\\\"\""}));
  const json stored = status_of(warn);
  EXPECT_FALSE(stored["spec"].contains("replica"));
  EXPECT_FALSE(stored["spec"]["template"]["spec"]["containers"][0].contains("imagePullPolice"));
  auto ignored = deployment;
  ignored["metadata"]["name"] = "e";
  const auto ignore = create(deployments, ignored, "Ignore");
  ASSERT_EQ(ignore.status, 201) << ignore.body;
  EXPECT_TRUE(warnings(ignore).empty());
  EXPECT_FALSE(status_of(ignore)["spec"].contains("replica"));
}

TEST_F(BuiltinValidation, FieldsNewerThanTheV113DefinitionsAreAcceptedUnderStrict) {
  struct Case {
    std::string collection;
    const char* object;
  };
  const std::vector<Case> cases = {
      {k_ns + "pods", R"({"metadata":{"name":"p","creationTimestamp":null},"spec":{"os":{"name":"linux"},
          "schedulingGates":[{"name":"g"}],"hostUsers":false,"topologySpreadConstraints":[{"maxSkew":1,
          "topologyKey":"k","whenUnsatisfiable":"DoNotSchedule","matchLabelKeys":["a"]}],
          "containers":[{"name":"c","image":"i","resources":{},"resizePolicy":[{"resourceName":"cpu",
          "restartPolicy":"NotRequired"}],"startupProbe":{"grpc":{"port":1}},"securityContext":{
          "seccompProfile":{"type":"RuntimeDefault"}}}],"initContainers":[{"name":"s","image":"i",
          "restartPolicy":"Always"}]},"status":{}})"},
      {k_ns + "services", R"({"metadata":{"name":"s"},"spec":{"ports":[{"port":80,"appProtocol":"http"}],
          "ipFamilyPolicy":"SingleStack","ipFamilies":["IPv4"],"internalTrafficPolicy":"Local",
          "trafficDistribution":"PreferClose","allocateLoadBalancerNodePorts":true}})"},
      {"/apis/batch/v1/namespaces/default/jobs",
       R"({"metadata":{"name":"j"},"spec":{"completionMode":"Indexed",
          "completions":2,"suspend":false,"backoffLimitPerIndex":1,"podReplacementPolicy":"Failed",
          "managedBy":"kubernetes.io/job-controller","podFailurePolicy":{"rules":[{"action":"FailJob",
          "onExitCodes":{"operator":"In","values":[42]}}]},"successPolicy":{"rules":[{"succeededCount":1}]},
          "template":{"metadata":{"creationTimestamp":null},"spec":{"restartPolicy":"Never",
          "containers":[{"name":"c","image":"i"}]}}}})"},
      {"/apis/batch/v1/namespaces/default/cronjobs",
       R"({"metadata":{"name":"cj"},"spec":{"schedule":"@hourly",
          "timeZone":"Etc/UTC","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"Never",
          "containers":[{"name":"c","image":"i"}]}}}}}})"},
      {"/apis/coordination.k8s.io/v1/namespaces/default/leases", R"({"metadata":{"name":"l"},"spec":{
          "holderIdentity":"h","leaseDurationSeconds":15,"renewTime":"2026-01-01T00:00:00.000000Z",
          "strategy":"OldestEmulationVersion","preferredHolder":"p"}})"},
      {k_ns + "configmaps",
       R"({"metadata":{"name":"c","managedFields":[{"manager":"kubectl","operation":"Apply",
          "fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}}]},"immutable":true,"binaryData":{"b":"AAE="}})"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.collection);
    const auto r = call("POST", c.collection, c.object, "Strict");
    EXPECT_EQ(r.status, 201) << r.body;
    EXPECT_TRUE(warnings(r).empty());
  }
}

TEST_F(BuiltinValidation, AStatusWithFieldsThisServerDoesNotKnowIsKept) {
  ASSERT_EQ(create(k_ns + "pods", pod(json::parse(R"([{"name":"c","image":"i"}])"))).status, 201);
  const auto r =
      call("PATCH", k_ns + "pods/p/status", R"({"status":{"phase":"Running","futureField":{"x":1}}})", "",
           "application/merge-patch+json");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(status_of(r)["status"]["futureField"], json::parse(R"({"x":1})"));
}

TEST_F(BuiltinValidation, AStatusWriteIsNotRefusedForASpecStoredBeforeValidation) {
  // A pod an older server stored without containers: its node still reports on it.
  ASSERT_TRUE(m_store.mutate("/pods", "default", "old", [](const auto&) -> Expected<json> {
    return json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"old","namespace":"default",
        "uid":"u"},"spec":{}})");
  }));
  const auto r = call("PATCH", k_ns + "pods/old/status", R"({"status":{"phase":"Failed"}})", "",
                      "application/merge-patch+json");
  EXPECT_EQ(r.status, 200) << r.body;
  const auto bad = call("PATCH", k_ns + "pods/old/status", R"({"status":{"phase":3}})", "",
                        "application/merge-patch+json");
  EXPECT_EQ(bad.status, 422) << bad.body;
}

TEST_F(BuiltinValidation, APatchWhoseResultDoesNotDecodeIsInvalidOnTheFieldPatch) {
  ASSERT_EQ(create(k_ns + "configmaps", {{"metadata", {{"name", "x"}}}}).status, 201);
  const auto r =
      call("PATCH", k_ns + "configmaps/x", R"({"data":{"k":1}})", "Strict", "application/merge-patch+json");
  EXPECT_EQ(r.status, 422);
  const std::string message = status_of(r)["message"];
  EXPECT_EQ(message.rfind(" \"\" is invalid: patch: Invalid value: \"{", 0), 0u) << message;
  const std::string tail =
      "\": json: cannot unmarshal number into Go struct field ConfigMap.data of type string";
  EXPECT_EQ(message.substr(message.size() - tail.size()), tail);
  EXPECT_EQ(status_of(r)["details"]["causes"][0]["field"], "patch");
}

TEST_F(BuiltinValidation, ValuesOutsideTheFixedSetsAreUnsupportedInTheRealServersWords) {
  struct Case {
    const char* name;
    std::string collection;
    json object;
    std::string field;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"a pod's restartPolicy", k_ns + "pods",
       json::parse(R"({"metadata":{"name":"p"},"spec":{"restartPolicy":"Sometimes",
                       "containers":[{"name":"c","image":"i"}]}})"),
       "spec.restartPolicy",
       R"(Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never")"},
      {"a container's imagePullPolicy", k_ns + "pods",
       pod(json::parse(R"([{"name":"c","image":"i","imagePullPolicy":"Maybe"}])")),
       "spec.containers[0].imagePullPolicy",
       R"(Unsupported value: "Maybe": supported values: "Always", "IfNotPresent", "Never")"},
      {"a port's protocol", k_ns + "pods",
       pod(json::parse(R"([{"name":"c","image":"i","ports":[{"containerPort":80,"protocol":"tcp"}]}])")),
       "spec.containers[0].ports[0].protocol",
       R"(Unsupported value: "tcp": supported values: "SCTP", "TCP", "UDP")"},
      {"a Service's type", k_ns + "services",
       json::parse(R"({"metadata":{"name":"s"},"spec":{"type":"Headless","ports":[{"port":80}]}})"),
       "spec.type",
       R"(Unsupported value: "Headless": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort")"},
      {"a Job's completionMode", "/apis/batch/v1/namespaces/default/jobs",
       json::parse(R"({"metadata":{"name":"j"},"spec":{"completionMode":"indexed","template":{"spec":{
                       "restartPolicy":"Never","containers":[{"name":"c","image":"i"}]}}}})"),
       "spec.completionMode", R"(Unsupported value: "indexed": supported values: "NonIndexed", "Indexed")"},
      {"a Job's pods default to Always, which a Job refuses", "/apis/batch/v1/namespaces/default/jobs",
       json::parse(R"({"metadata":{"name":"j"},"spec":{"template":{"spec":{
                       "containers":[{"name":"c","image":"i"}]}}}})"),
       "spec.template.spec.restartPolicy",
       R"(Unsupported value: "Always": supported values: "OnFailure", "Never")"},
      {"a Deployment's template", "/apis/apps/v1/namespaces/default/deployments",
       json::parse(R"({"metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{
                       "metadata":{"labels":{"a":"b"}},"spec":{"dnsPolicy":"Google",
                       "containers":[{"name":"c","image":"i"}]}}}})"),
       "spec.template.spec.dnsPolicy",
       R"(Unsupported value: "Google": supported values: "ClusterFirst", "ClusterFirstWithHostNet", "Default", "None")"},
  };
  for (const auto& c : cases) {
    const auto r = create(c.collection, c.object);
    ASSERT_EQ(r.status, 422) << c.name << ": " << r.body;
    const auto causes = status_of(r)["details"]["causes"];
    ASSERT_EQ(causes.size(), 1u) << c.name << ": " << r.body;
    EXPECT_EQ(causes[0]["reason"], "FieldValueNotSupported") << c.name;
    EXPECT_EQ(causes[0]["field"], c.field) << c.name;
    EXPECT_EQ(causes[0]["message"], c.message) << c.name;
  }
  EXPECT_EQ(create(k_ns + "pods", json::parse(R"({"metadata":{"name":"ok"},"spec":{"restartPolicy":"Never",
      "containers":[{"name":"c","image":"i","imagePullPolicy":"IfNotPresent"}]}})"))
                .status,
            201);
}

TEST_F(BuiltinValidation, ContainerNamesHostnameAndSubdomainAreDnsLabels) {
  const std::string rule =
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
      "and "
      "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  struct Case {
    const char* name;
    json spec;
    std::string reason;
    std::string field;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"a path as a container name", json::parse(R"({"containers":[{"name":"../x","image":"i"}]})"),
       "FieldValueInvalid", "spec.containers[0].name", "Invalid value: \"../x\": " + rule},
      {"a name an init container already has",
       json::parse(
           R"({"initContainers":[{"name":"a","image":"i"}],"containers":[{"name":"a","image":"i"}]})"),
       "FieldValueDuplicate", "spec.containers[0].name", "Duplicate value: \"a\""},
      {"a newline in the hostname",
       json::parse(R"({"hostname":"w\n1.2.3.4 evil","containers":[{"name":"c","image":"i"}]})"),
       "FieldValueInvalid", "spec.hostname", "Invalid value: \"w\\n1.2.3.4 evil\": " + rule},
      {"a dotted subdomain", json::parse(R"({"subdomain":"a.b","containers":[{"name":"c","image":"i"}]})"),
       "FieldValueInvalid", "spec.subdomain", "Invalid value: \"a.b\": " + rule},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto r = create(k_ns + "pods", json{{"metadata", {{"name", "p"}}}, {"spec", c.spec}});
    ASSERT_EQ(r.status, 422) << r.body;
    const auto causes = status_of(r)["details"]["causes"];
    ASSERT_EQ(causes.size(), 1u) << r.body;
    EXPECT_EQ(causes[0]["reason"], c.reason);
    EXPECT_EQ(causes[0]["field"], c.field);
    EXPECT_EQ(causes[0]["message"], c.message);
  }
}

TEST_F(BuiltinValidation, APodsSpecChangesOnlyWhereTheRealServerLetsItChange) {
  ASSERT_EQ(create(k_ns + "pods", json::parse(R"({"metadata":{"name":"p","labels":{"a":"1"}},"spec":{
      "activeDeadlineSeconds":100,"tolerations":[{"key":"k","operator":"Exists"}],
      "containers":[{"name":"c","image":"i:1","command":["sleep","1"]}]}})"))
                .status,
            201);
  const auto patch = [&](const std::string& body) {
    return call("PATCH", k_ns + "pods/p", body, "Strict", "application/merge-patch+json");
  };
  EXPECT_EQ(patch(R"({"metadata":{"labels":{"a":"2"}}})").status, 200);
  EXPECT_EQ(call("PATCH", k_ns + "pods/p", R"({"spec":{"containers":[{"name":"c","image":"i:2"}]}})",
                 "Strict", "application/strategic-merge-patch+json")
                .status,
            200);
  EXPECT_EQ(patch(R"({"spec":{"activeDeadlineSeconds":50}})").status, 200);
  EXPECT_EQ(
      patch(R"({"spec":{"tolerations":[{"key":"k","operator":"Exists"},{"key":"n","operator":"Exists"}]}})")
          .status,
      200);

  const auto changed =
      call("PATCH", k_ns + "pods/p", R"({"spec":{"containers":[{"name":"c","command":["sleep","2"]}]}})",
           "Strict", "application/strategic-merge-patch+json");
  ASSERT_EQ(changed.status, 422) << changed.body;
  const auto cause = status_of(changed)["details"]["causes"][0];
  EXPECT_EQ(cause["reason"], "FieldValueForbidden");
  EXPECT_EQ(cause["field"], "spec");
  EXPECT_EQ(
      cause["message"],
      "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
      "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to "
      "existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was "
      "previously negative)\n  changed: spec.containers[0].command[1]");
  EXPECT_EQ(status_of(changed)["message"].get<std::string>().rfind(
                "Pod \"p\" is invalid: spec: Forbidden: pod updates", 0),
            0u);

  const auto raised = patch(R"({"spec":{"activeDeadlineSeconds":60}})");
  ASSERT_EQ(raised.status, 422);
  EXPECT_EQ(status_of(raised)["details"]["causes"][0]["message"],
            "Invalid value: 60: must be less than or equal to previous value");
  const auto removed = patch(R"({"spec":{"tolerations":[{"key":"n","operator":"Exists"}]}})");
  ASSERT_EQ(removed.status, 422);
  EXPECT_EQ(status_of(removed)["details"]["causes"][0]["message"].get<std::string>().substr(0, 60),
            "Forbidden: pod updates may not change fields other than `spe");
  // The node's status writes are not spec updates.
  EXPECT_EQ(call("PATCH", k_ns + "pods/p/status", R"({"status":{"phase":"Running"}})", "",
                 "application/merge-patch+json")
                .status,
            200);
}

TEST_F(BuiltinValidation, AnImmutableConfigMapOrSecretKeepsItsDataAndASecretItsType) {
  ASSERT_EQ(create(k_ns + "configmaps",
                   json::parse(R"({"metadata":{"name":"c"},"data":{"k":"v"},"immutable":true})"))
                .status,
            201);
  const auto cm = call("PATCH", k_ns + "configmaps/c", R"({"data":{"k":"w"},"immutable":false})", "Strict",
                       "application/merge-patch+json");
  ASSERT_EQ(cm.status, 422) << cm.body;
  EXPECT_EQ(
      status_of(cm)["message"],
      "ConfigMap \"c\" is invalid: [immutable: Forbidden: field is immutable when `immutable` is set, data: "
      "Forbidden: field is immutable when `immutable` is set]");
  EXPECT_EQ(call("PATCH", k_ns + "configmaps/c", R"({"metadata":{"labels":{"a":"b"}}})", "Strict",
                 "application/merge-patch+json")
                .status,
            200);

  ASSERT_EQ(
      create(k_ns + "secrets", json::parse(R"({"metadata":{"name":"s"},"stringData":{"k":"v"}})")).status,
      201);
  const auto typed = call("PATCH", k_ns + "secrets/s", R"({"type":"kubernetes.io/tls"})", "Strict",
                          "application/merge-patch+json");
  ASSERT_EQ(typed.status, 422) << typed.body;
  EXPECT_EQ(status_of(typed)["details"]["causes"][0]["message"],
            "Invalid value: \"kubernetes.io/tls\": field is immutable");
}

TEST_F(BuiltinValidation, AJobsTemplateIsFixedUnlessItIsSuspendedAndThenOnlyItsSchedulingDirectives) {
  const std::string jobs = "/apis/batch/v1/namespaces/default/jobs";
  const auto job = [](const char* name, bool suspend) {
    json j = json::parse(R"({"spec":{"template":{"spec":{"restartPolicy":"Never",
                             "containers":[{"name":"c","image":"i"}]}}}})");
    j["metadata"]["name"] = name;
    j["spec"]["suspend"] = suspend;
    return j;
  };
  ASSERT_EQ(create(jobs, job("run", false)).status, 201);
  ASSERT_EQ(create(jobs, job("held", true)).status, 201);
  const auto patch = [&](const std::string& name, const std::string& body) {
    return call("PATCH", jobs + "/" + name, body, "Strict", "application/merge-patch+json");
  };
  const std::string node_selector = R"({"spec":{"template":{"spec":{"nodeSelector":{"zone":"a"}}}}})";
  const auto running = patch("run", node_selector);
  ASSERT_EQ(running.status, 422) << running.body;
  EXPECT_EQ(status_of(running)["details"]["causes"][0]["field"], "spec.template");
  EXPECT_EQ(patch("held", node_selector).status, 200);
  EXPECT_EQ(patch("held", R"({"spec":{"template":{"spec":{"restartPolicy":"OnFailure"}}}})").status, 422);
  const auto mode = patch("held", R"({"spec":{"completionMode":"Indexed"}})");
  ASSERT_EQ(mode.status, 422);
  EXPECT_EQ(status_of(mode)["details"]["causes"][0]["message"],
            "Invalid value: \"Indexed\": field is immutable");
  EXPECT_EQ(patch("run", R"({"spec":{"parallelism":3}})").status, 200);
}

TEST(GoTypes, AMapKeyWithDotsIsOneKey) {
  const auto& types = GoTypes::builtin();
  const json cm = json::parse(R"({"metadata":{"annotations":{"a.b/c.d":5}}})");
  EXPECT_EQ(
      types.type_error("v1", "ConfigMap", cm, "metadata.annotations.a.b/c.d"),
      "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.annotations of type string");
  EXPECT_EQ(types.type_error("v1", "ConfigMap", cm, "metadata.nosuch"), "");
  EXPECT_EQ(types.type_error("v1", "Nothing", cm, "metadata"), "");
}

TEST(GoQuote, EscapesAsGoPercentQDoes) { EXPECT_EQ(go_quote("a\"b\\c\nd\x01"), R"("a\"b\\c\nd\x01")"); }

}  // namespace
}  // namespace kpt::apiserver
