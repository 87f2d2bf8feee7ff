#include "apiserver/protobuf_body.hpp"

#include "apiserver/proto/k8s_core.pb.h"
#include "apiserver/proto/k8s_meta.pb.h"
#include "apiserver/proto/k8s_workloads.pb.h"
#include "util/base64.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/message.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <utility>

namespace kpt::apiserver {

namespace {

using json = nlohmann::json;
namespace pb = google::protobuf;

constexpr std::string_view k_magic("k8s\0", 4);

struct Kind {
  const char* api_version;
  const char* kind;
  const pb::Message* prototype;
};

const std::vector<Kind>& known_kinds() {
  static const std::vector<Kind> k_kinds = {
      {"v1", "Namespace", &k8s::Namespace::default_instance()},
      {"v1", "ConfigMap", &k8s::ConfigMap::default_instance()},
      {"v1", "Secret", &k8s::Secret::default_instance()},
      {"v1", "Service", &k8s::Service::default_instance()},
      {"v1", "ServiceAccount", &k8s::ServiceAccount::default_instance()},
      {"v1", "Pod", &k8s::Pod::default_instance()},
      {"apps/v1", "Deployment", &k8s::Deployment::default_instance()},
      {"batch/v1", "Job", &k8s::Job::default_instance()},
      {"batch/v1", "CronJob", &k8s::CronJob::default_instance()},
  };
  return k_kinds;
}

std::string known_kind_list() {
  std::string out;
  for (const auto& k : known_kinds())
    out += std::string(out.empty() ? "" : ", ") + k.api_version + " " + k.kind;
  return out;
}

Error unsupported(const std::string& why) {
  return make_api_error(415, "UnsupportedMediaType",
                        "the protobuf body cannot be read by this server: " + why +
                            " (send the object as application/json, e.g. with 'kubectl create -f')");
}

Error malformed(const std::string& why) {
  return bad_request("the protobuf body is not a valid Kubernetes object: " + why);
}

bool parse_bounded(pb::Message& msg, std::string_view bytes, const ProtobufLimits& limits) {
  pb::io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                              static_cast<int>(bytes.size()));
  in.SetRecursionLimit(limits.max_depth);
  in.SetTotalBytesLimit(static_cast<int>(bytes.size()));
  return msg.ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
}

/// JSON of one message, as Go's encoding/json writes the Kubernetes type it stands for.
class JsonWriter {
 public:
  Expected<json> message(const pb::Message& msg, const std::string& path) {
    const auto* desc = msg.GetDescriptor();
    const auto* refl = msg.GetReflection();
    if (const auto& unknown = refl->GetUnknownFields(msg); unknown.field_count() > 0) {
      return unsupported("field number " + std::to_string(unknown.field(0).number()) + " of " + desc->name() +
                         (path.empty() ? "" : " at " + path) + " is not known here");
    }
    if (desc->full_name() == "kpt.k8s.Time") return time_json(msg);
    if (desc->full_name() == "kpt.k8s.IntOrString") {
      const auto& v = static_cast<const k8s::IntOrString&>(msg);
      return v.type() == 1 ? json(v.strval()) : json(v.intval());
    }
    if (desc->full_name() == "kpt.k8s.Quantity") return json(static_cast<const k8s::Quantity&>(msg).string());
    json out = json::object();
    std::vector<const pb::FieldDescriptor*> fields;
    refl->ListFields(msg, &fields);
    for (const auto* f : fields) {
      const std::string at = path.empty() ? f->name() : path + "." + f->name();
      if (f->options().GetExtension(k8s::embedded)) {
        auto inner = message(refl->GetMessage(msg, f), path);
        if (!inner) return inner;
        for (auto& [k, v] : inner->items()) out[k] = std::move(v);
        continue;
      }
      auto value = field(msg, f, at);
      if (!value) return value;
      if (!value->is_null()) out[f->name()] = std::move(value.value());
    }
    return out;
  }

 private:
  static json time_json(const pb::Message& msg) {
    const auto& t = static_cast<const k8s::Time&>(msg);
    if (t.seconds() == 0 && t.nanos() == 0) return nullptr;  // the zero time is null in JSON
    return util::format_time(util::Time(std::chrono::seconds(t.seconds())));
  }

  Expected<json> field(const pb::Message& msg, const pb::FieldDescriptor* f, const std::string& at) {
    const auto* refl = msg.GetReflection();
    if (f->is_map()) return map_field(msg, f, at);
    if (f->is_repeated()) {
      json arr = json::array();
      for (int i = 0; i < refl->FieldSize(msg, f); ++i) {
        auto item = repeated_item(msg, f, i, at + "[" + std::to_string(i) + "]");
        if (!item) return item;
        arr.push_back(std::move(item.value()));
      }
      return arr.empty() ? json(nullptr) : arr;
    }
    const bool omit_zero = f->options().GetExtension(k8s::omit_zero);
    switch (f->cpp_type()) {
      case pb::FieldDescriptor::CPPTYPE_STRING: {
        std::string v = refl->GetString(msg, f);
        if (v.empty()) return json(nullptr);  // Go's omitempty, and "" means "not set" in every other case
        if (f->type() == pb::FieldDescriptor::TYPE_BYTES) return json(util::base64_encode(v));
        return json(std::move(v));
      }
      case pb::FieldDescriptor::CPPTYPE_INT32: {
        const auto v = refl->GetInt32(msg, f);
        return v == 0 && omit_zero ? json(nullptr) : json(v);
      }
      case pb::FieldDescriptor::CPPTYPE_INT64: {
        const auto v = refl->GetInt64(msg, f);
        return v == 0 && omit_zero ? json(nullptr) : json(v);
      }
      case pb::FieldDescriptor::CPPTYPE_BOOL: {
        const bool v = refl->GetBool(msg, f);
        return !v && omit_zero ? json(nullptr) : json(v);
      }
      case pb::FieldDescriptor::CPPTYPE_MESSAGE:
        return message(refl->GetMessage(msg, f), at);
      default:
        return unsupported("field " + util::quote(at) + " has a type this server does not read");
    }
  }

  Expected<json> repeated_item(const pb::Message& msg, const pb::FieldDescriptor* f, int i,
                               const std::string& at) {
    const auto* refl = msg.GetReflection();
    switch (f->cpp_type()) {
      case pb::FieldDescriptor::CPPTYPE_STRING:
        return json(refl->GetRepeatedString(msg, f, i));
      case pb::FieldDescriptor::CPPTYPE_MESSAGE:
        return message(refl->GetRepeatedMessage(msg, f, i), at);
      default:
        return unsupported("field " + util::quote(at) + " has a type this server does not read");
    }
  }

  Expected<json> map_field(const pb::Message& msg, const pb::FieldDescriptor* f, const std::string& at) {
    const auto* refl = msg.GetReflection();
    json out = json::object();
    for (int i = 0; i < refl->FieldSize(msg, f); ++i) {
      const auto& entry = refl->GetRepeatedMessage(msg, f, i);
      const auto* entry_refl = entry.GetReflection();
      const auto* key_field = entry.GetDescriptor()->map_key();
      const auto* value_field = entry.GetDescriptor()->map_value();
      const std::string key = entry_refl->GetString(entry, key_field);
      if (value_field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
        auto v = message(entry_refl->GetMessage(entry, value_field), at + "[" + key + "]");
        if (!v) return v;
        out[key] = std::move(v.value());
      } else {
        std::string v = entry_refl->GetString(entry, value_field);
        out[key] = value_field->type() == pb::FieldDescriptor::TYPE_BYTES ? util::base64_encode(v) : v;
      }
    }
    return out.empty() ? json(nullptr) : out;
  }
};

}  // namespace

bool is_protobuf_content_type(const std::string& content_type) {
  return content_type.rfind("application/vnd.kubernetes.protobuf", 0) == 0;
}

namespace {

/// The runtime.Unknown envelope after the magic, with the checks every body shares.
Expected<k8s::Unknown> read_envelope(std::string_view body, const ProtobufLimits& limits) {
  if (body.size() > limits.max_bytes) {
    return make_api_error(413, "RequestEntityTooLarge",
                          "the request body is larger than " + std::to_string(limits.max_bytes) + " bytes");
  }
  if (body.substr(0, k_magic.size()) != k_magic) {
    return malformed("it does not start with the Kubernetes protobuf magic \"k8s\\x00\"");
  }
  k8s::Unknown envelope;
  if (!parse_bounded(envelope, body.substr(k_magic.size()), limits)) {
    return malformed("the runtime.Unknown envelope does not parse");
  }
  if (envelope.GetReflection()->GetUnknownFields(envelope).field_count() > 0 ||
      envelope.typemeta().GetReflection()->GetUnknownFields(envelope.typemeta()).field_count() > 0) {
    return unsupported("the runtime.Unknown envelope has fields this server does not know");
  }
  if (!envelope.contentencoding().empty()) {
    return unsupported("content encoding " + util::quote(envelope.contentencoding()) + " is not read");
  }
  return envelope;
}

/// The envelope's object, parsed as `prototype`, in its JSON form with the envelope's apiVersion and kind.
Expected<json> object_json(const k8s::Unknown& envelope, const pb::Message& prototype,
                           const ProtobufLimits& limits) {
  const auto& type = envelope.typemeta();
  std::unique_ptr<pb::Message> object(prototype.New());
  if (!parse_bounded(*object, envelope.raw(), limits)) {
    return malformed("the " + type.kind() + " does not parse, or nests deeper than " +
                     std::to_string(limits.max_depth) + " levels");
  }
  auto out = JsonWriter().message(*object, "");
  if (!out) return out;
  out.value()["apiVersion"] = type.apiversion();
  out.value()["kind"] = type.kind();
  return out;
}

}  // namespace

Expected<json> decode_protobuf_body(std::string_view body, const ProtobufLimits& limits) {
  auto envelope = read_envelope(body, limits);
  if (!envelope) return envelope.error();
  const auto& type = envelope->typemeta();
  const Kind* kind = nullptr;
  for (const auto& k : known_kinds()) {
    if (type.apiversion() == k.api_version && type.kind() == k.kind) kind = &k;
  }
  if (kind == nullptr) {
    return unsupported("kind " + util::quote(type.kind()) + " of " + util::quote(type.apiversion()) +
                       " is not one it decodes (" + known_kind_list() + ")");
  }
  return object_json(*envelope, *kind->prototype, limits);
}

Expected<json> decode_protobuf_delete_options(std::string_view body, const ProtobufLimits& limits) {
  auto envelope = read_envelope(body, limits);
  if (!envelope) return envelope.error();
  const auto& type = envelope->typemeta();
  if (type.kind() != "DeleteOptions") return json{{"apiVersion", type.apiversion()}, {"kind", type.kind()}};
  return object_json(*envelope, k8s::DeleteOptions::default_instance(), limits);
}

}  // namespace kpt::apiserver
