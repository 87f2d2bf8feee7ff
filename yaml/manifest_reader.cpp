#include "yaml/manifest_reader.hpp"

#include "yaml/alias_budget.hpp"
#include "yaml/simple_yaml.hpp"
#include "yaml/text_checks.hpp"
#include "yaml/yaml_scalar.hpp"
#include "yaml/yaml_tree_builder.hpp"

#include <yaml.h>

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

namespace kpt::yaml {
namespace {

Position to_position(const yaml_mark_t& mark) {
  return Position{static_cast<std::uint32_t>(mark.line + 1), static_cast<std::uint32_t>(mark.column + 1)};
}

std::string_view as_view(const yaml_char_t* text) {
  return text == nullptr ? std::string_view{} : std::string_view(reinterpret_cast<const char*>(text));
}

Diagnostic file_finding(const std::string& name, Position pos, std::string rule_id, std::string message,
                        std::string hint) {
  Diagnostic d;
  d.location = Location{name, pos.line, pos.col};
  d.rule_id = std::move(rule_id);
  d.message = std::move(message);
  d.hint = std::move(hint);
  return d;
}

/// libyaml's parser, freed on every path out.
class Parser {
 public:
  Parser(std::string_view text) {  // NOLINT(google-explicit-constructor)
    m_ok = yaml_parser_initialize(&m_parser) != 0;
    if (m_ok) {
      yaml_parser_set_input_string(&m_parser, reinterpret_cast<const unsigned char*>(text.data()),
                                   text.size());
    }
  }
  ~Parser() {
    if (m_ok) yaml_parser_delete(&m_parser);
  }
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;
  [[nodiscard]] bool ok() const { return m_ok; }
  yaml_parser_t& get() { return m_parser; }

 private:
  yaml_parser_t m_parser{};
  bool m_ok = false;
};

class Event {
 public:
  Event() = default;
  ~Event() { yaml_event_delete(&m_event); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  yaml_event_t& get() { return m_event; }

 private:
  yaml_event_t m_event{};
};

// No field path: libyaml reads ahead, so the builder's path may already be past the problem.
Diagnostic syntax_finding(const std::string& name, std::string_view text, const yaml_parser_t& parser) {
  if (parser.error == YAML_MEMORY_ERROR) {
    return file_finding(name, Position{1, 1}, "yaml.syntax", "out of memory while parsing", {});
  }
  if (parser.error == YAML_READER_ERROR) {
    return file_finding(name, position_of_offset(text, parser.problem_offset), "yaml.syntax",
                        std::string(parser.problem != nullptr ? parser.problem : "invalid input"), {});
  }
  const auto pos = to_position(parser.problem_mark);
  if (const auto tab = tab_in_indentation(text, pos.line)) {
    return file_finding(name, *tab, "yaml.tab-indent", "tab character in indentation",
                        "indent with spaces; YAML does not allow tabs for indentation");
  }
  std::string message = parser.problem != nullptr ? parser.problem : "invalid YAML";
  if (parser.context != nullptr) {
    message += " (";
    message += parser.context;
    message += " at line " + std::to_string(parser.context_mark.line + 1) + ")";
  }
  return file_finding(name, pos, "yaml.syntax", std::move(message), {});
}

/// The checks on the bytes that come before any parsing; false when the text is not parsed.
bool check_bytes(const std::string& name, const std::string& text, const ReadLimits& limits,
                 ReadResult& result) {
  if (text.size() > limits.max_bytes) {
    result.findings.push_back(
        file_finding(name, Position{1, 1}, "input.too-large",
                     "file is larger than the limit of " + std::to_string(limits.max_bytes) + " bytes",
                     "raise the limit with --max-bytes"));
    return false;
  }
  if (auto problem = check_text(text)) {
    result.findings.push_back(file_finding(name, problem->pos, std::move(problem->rule_id),
                                           std::move(problem->message), std::move(problem->hint)));
    return false;
  }
  return true;
}

/// libyaml's events into the tree builder.
void parse_with_libyaml(const std::string& name, const std::shared_ptr<const std::string>& text,
                        const ReadLimits& limits, ReadResult& result) {
  Parser parser(*text);
  if (!parser.ok()) {
    result.findings.push_back(
        file_finding(name, Position{1, 1}, "yaml.syntax", "out of memory while parsing", {}));
    return;
  }
  std::vector<std::size_t> bombs;
  if (may_contain_aliases(*text))
    bombs = documents_over_node_limit(*text, limits.max_nodes, limits.max_depth);
  TreeBuilder builder(limits, name, result.findings);
  Position doc_start;
  std::size_t doc_index = 0;
  for (bool done = false; !done;) {
    Event event;
    auto& ev = event.get();
    if (yaml_parser_parse(&parser.get(), &ev) == 0) {
      // The rest of the file cannot be trusted: keep earlier documents, drop this one.
      result.findings.push_back(syntax_finding(name, *text, parser.get()));
      break;
    }
    switch (ev.type) {
      case YAML_STREAM_END_EVENT:
        done = true;
        break;
      case YAML_DOCUMENT_START_EVENT:
        if (doc_index >= limits.max_documents) {
          result.findings.push_back(
              file_finding(name, to_position(ev.start_mark), "input.too-many-documents",
                           "more than " + std::to_string(limits.max_documents) + " documents in one file",
                           "split the file"));
          done = true;
          break;
        }
        doc_start = to_position(ev.start_mark);
        builder.begin_document(std::find(bombs.begin(), bombs.end(), doc_index) != bombs.end());
        break;
      case YAML_DOCUMENT_END_EVENT: {
        auto root = builder.end_document();
        const auto index = doc_index++;
        if (!root) break;
        if (root->kind == NodeKind::null) {
          ++result.empty_documents;
          break;
        }
        result.documents.push_back(Document{name, index, doc_start, std::move(*root), text});
        break;
      }
      case YAML_SCALAR_EVENT: {
        const auto& s = ev.data.scalar;
        ScalarStyle style;
        style.quoted = s.style != YAML_PLAIN_SCALAR_STYLE && s.style != YAML_ANY_SCALAR_STYLE;
        style.tag = as_view(s.tag);
        builder.scalar(std::string(reinterpret_cast<const char*>(s.value), s.length),
                       to_position(ev.start_mark), style, as_view(s.anchor));
        break;
      }
      case YAML_SEQUENCE_START_EVENT:
        builder.begin_container(NodeKind::sequence, to_position(ev.start_mark),
                                as_view(ev.data.sequence_start.anchor));
        break;
      case YAML_MAPPING_START_EVENT:
        builder.begin_container(NodeKind::mapping, to_position(ev.start_mark),
                                as_view(ev.data.mapping_start.anchor));
        break;
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT:
        builder.end_container();
        break;
      case YAML_ALIAS_EVENT:
        builder.alias(as_view(ev.data.alias.anchor), to_position(ev.start_mark));
        break;
      case YAML_NO_EVENT:
      case YAML_STREAM_START_EVENT:
        break;
    }
    if (builder.stop_file()) break;
  }
}

}  // namespace

ReadResult read_manifests(const std::string& name, std::shared_ptr<const std::string> text,
                          const ReadLimits& limits) {
  ReadResult result;
  if (!text) text = std::make_shared<const std::string>();
  if (!check_bytes(name, *text, limits, result)) return result;
  if (auto simple = read_simple_yaml(name, text, limits)) return std::move(*simple);
  parse_with_libyaml(name, text, limits, result);
  return result;
}

ReadResult read_manifests_with_libyaml(const std::string& name, std::shared_ptr<const std::string> text,
                                       const ReadLimits& limits) {
  ReadResult result;
  if (!text) text = std::make_shared<const std::string>();
  if (check_bytes(name, *text, limits, result)) parse_with_libyaml(name, text, limits, result);
  return result;
}

ReadResult read_manifests(const InputFile& input, const ReadLimits& limits) {
  if (input.too_large) {
    ReadResult result;
    result.findings.push_back(
        file_finding(input.name, Position{1, 1}, "input.too-large",
                     "file is larger than the limit of " + std::to_string(limits.max_bytes) + " bytes",
                     "raise the limit with --max-bytes"));
    return result;
  }
  return read_manifests(input.name, input.text, limits);
}

}  // namespace kpt::yaml
