#include "util/json_access.hpp"

#include "model/k8s/object_meta.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::util {
namespace {

using nlohmann::json;

// What a hostile or sloppy document may hold where an object or a string is expected: every
// accessor answers "absent" for each of them instead of throwing.
const std::vector<json> k_not_what_was_expected = {
    nullptr, 1, -2.5, true, "text", json::array({1, "a"}), json::object({{"x", 1}})};

TEST(JsonAccess, EveryAccessorAnswersAbsentForAValueOfAnotherType) {
  for (const auto& value : k_not_what_was_expected) {
    SCOPED_TRACE(value.dump());
    const json holder = {{"k", value}, {"spec", value}};
    if (!value.is_string()) {
      EXPECT_EQ(string_at(holder, "k"), "");
      EXPECT_EQ(optional_string(holder, "k"), std::nullopt);
    }
    if (!value.is_number_integer()) {
      EXPECT_EQ(int_at(holder, "k"), std::nullopt);
    }
    if (!value.is_boolean()) {
      EXPECT_TRUE(bool_at(holder, "k", true));
    }
    // A path through a value that is not an object ends there.
    EXPECT_EQ(at_path(holder, "spec.template.spec"), nullptr);
    EXPECT_TRUE(object_at(holder, "spec.template").is_object());
    EXPECT_TRUE(array_at(holder, "spec.items").is_array());
    // The holder itself may be anything.
    EXPECT_EQ(child(value, "k"), value.is_object() && value.contains("k") ? &value["k"] : nullptr);
    EXPECT_TRUE(member(value, "absent").is_null());
    EXPECT_EQ(string_at(value, "k"), "");
    EXPECT_EQ(find_by(value, "name", "x"), nullptr);
    EXPECT_EQ(model::k8s::name_of(value), "");
    EXPECT_EQ(model::k8s::label_of(value, "app"), "");
  }
}

TEST(JsonAccess, ValuesOfTheRightTypeAreRead) {
  const json doc = json::parse(R"({
    "metadata": {"name": "j", "namespace": "ml", "uid": "u1", "labels": {"app": "mnist"}},
    "spec": {"replicas": 3, "suspend": true, "image": "", "items": [{"name": "a"}, {"name": "b", "v": 2}]}
  })");
  EXPECT_EQ(int_at(*at_path(doc, "spec"), "replicas"), 3);
  EXPECT_TRUE(bool_at(doc, "spec.suspend"));
  EXPECT_EQ(optional_string(object_at(doc, "spec"), "image"), std::string{});  // "" is not absent
  EXPECT_EQ(optional_string(object_at(doc, "spec"), "missing"), std::nullopt);
  const json* b = find_by(array_at(doc, "spec.items"), "name", "b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(int_at(*b, "v"), 2);
  EXPECT_EQ(model::k8s::name_of(doc), "j");
  EXPECT_EQ(model::k8s::namespace_of(doc), "ml");
  EXPECT_EQ(model::k8s::uid_of(doc), "u1");
  EXPECT_EQ(model::k8s::label_of(doc, "app"), "mnist");
  EXPECT_EQ(model::k8s::controller_reference("kubeflow.org/v1", "PyTorchJob", doc),
            json::parse(R"({"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "name": "j", "uid": "u1",
                            "controller": true, "blockOwnerDeletion": true})"));
}

TEST(JsonAccess, EnsurePathMakesObjectsWhereThereWereNone) {
  json doc = {{"spec", "not an object"}};
  ensure_path(doc, "spec.template.metadata")["labels"] = json::object();
  EXPECT_EQ(doc, json::parse(R"({"spec": {"template": {"metadata": {"labels": {}}}}})"));
}

}  // namespace
}  // namespace kpt::util
