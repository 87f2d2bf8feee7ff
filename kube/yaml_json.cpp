#include "kube/yaml_json.hpp"

#include <yaml.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>
#include <vector>

namespace kpt::kube {

namespace {

// The YAML 1.1 core scalars kubectl's yaml library (go-yaml v2 via sigs.k8s.io/yaml) resolves.
nlohmann::json plain_scalar(const std::string& v) {
  static const std::regex k_int{R"([-+]?[0-9]+)"};
  static const std::regex k_float{R"([-+]?([0-9]+\.[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?)"};
  if (v.empty() || v == "~" || v == "null" || v == "Null" || v == "NULL") return nullptr;
  if (v == "true" || v == "True" || v == "TRUE" || v == "y" || v == "Y" || v == "yes" || v == "Yes" ||
      v == "YES" || v == "on" || v == "On" || v == "ON")
    return true;
  if (v == "false" || v == "False" || v == "FALSE" || v == "n" || v == "N" || v == "no" || v == "No" ||
      v == "NO" || v == "off" || v == "Off" || v == "OFF")
    return false;
  if (std::regex_match(v, k_int)) {
    errno = 0;
    const long long n = std::strtoll(v.c_str(), nullptr, 10);
    if (errno == 0) return n;
    return v;
  }
  if (std::regex_match(v, k_float)) return std::strtod(v.c_str(), nullptr);
  return v;
}

class Builder {
 public:
  explicit Builder(std::string name) : m_name(std::move(name)) {}

  Expected<nlohmann::json> run(const std::string& text) {
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    Expected<nlohmann::json> result = nlohmann::json(nullptr);
    bool done = false;
    while (!done) {
      yaml_event_t ev;
      if (!yaml_parser_parse(&parser, &ev)) {
        result = make_error(ErrorCode::parse, "'" + m_name + "' line " + std::to_string(parser.problem_mark.line + 1) +
                                                  ", column " + std::to_string(parser.problem_mark.column + 1) + ": " +
                                                  (parser.problem ? parser.problem : "invalid YAML"));
        break;
      }
      if (auto err = handle(ev, done); !err.empty()) {
        result = make_error(ErrorCode::parse, "'" + m_name + "': " + err);
        done = true;
      }
      yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    if (!result) return result;
    return m_root;
  }

 private:
  struct Frame {
    nlohmann::json value;
    std::string pending_key;
    bool has_key = false;
  };

  std::string add(nlohmann::json v) {
    if (m_stack.empty()) {
      m_root = std::move(v);
      m_have_root = true;
      return {};
    }
    Frame& top = m_stack.back();
    if (top.value.is_array()) {
      top.value.push_back(std::move(v));
    } else if (!top.has_key) {
      if (!v.is_string() && !v.is_number() && !v.is_boolean() && !v.is_null()) return "mapping keys must be scalars";
      top.pending_key = v.is_string() ? v.get<std::string>() : v.dump();
      top.has_key = true;
    } else {
      top.value[top.pending_key] = std::move(v);
      top.has_key = false;
    }
    return {};
  }

  std::string handle(const yaml_event_t& ev, bool& done) {
    switch (ev.type) {
      case YAML_STREAM_END_EVENT:
        done = true;
        return {};
      case YAML_DOCUMENT_END_EVENT:
        if (m_have_root) done = true;  // first document only
        return {};
      case YAML_ALIAS_EVENT:
        return "aliases are not supported in kubeconfig files";
      case YAML_SCALAR_EVENT: {
        std::string v(reinterpret_cast<const char*>(ev.data.scalar.value), ev.data.scalar.length);
        if (ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE) return add(plain_scalar(v));
        return add(v);
      }
      case YAML_SEQUENCE_START_EVENT:
        m_stack.push_back({nlohmann::json::array(), {}, false});
        return {};
      case YAML_MAPPING_START_EVENT:
        m_stack.push_back({nlohmann::json::object(), {}, false});
        return {};
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT: {
        nlohmann::json v = std::move(m_stack.back().value);
        m_stack.pop_back();
        return add(std::move(v));
      }
      default:
        return {};
    }
  }

  std::string m_name;
  std::vector<Frame> m_stack;
  nlohmann::json m_root;
  bool m_have_root = false;
};

}  // namespace

Expected<nlohmann::json> yaml_to_json(const std::string& name, const std::string& text) {
  return Builder(name).run(text);
}

}  // namespace kpt::kube
