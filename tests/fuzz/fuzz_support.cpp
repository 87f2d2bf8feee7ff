#include "tests/fuzz/fuzz_support.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace kpt::fuzz {
namespace {

std::string at(yaml::Position p) { return std::to_string(p.line) + ":" + std::to_string(p.col); }

void dump_node(const yaml::Node& n, const std::string& indent, std::string& out) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &n.number, sizeof bits);
  out += indent + yaml::to_string(n.kind) + " @" + at(n.pos) + (n.quoted ? " quoted" : "") +
         (n.int_overflow ? " overflow" : "") + (n.boolean ? " true" : "") +
         " i=" + std::to_string(n.integer) + " d=" + std::to_string(bits) + " '" + n.text + "'\n";
  for (std::size_t i = 0; i < n.items.size(); ++i) {
    if (n.is_map()) out += indent + "key '" + n.keys[i] + "' @" + at(n.key_positions[i]) + "\n";
    dump_node(n.items[i], indent + "  ", out);
  }
}

}  // namespace

std::pair<std::string_view, std::string_view> split_once(std::string_view in, std::string_view separator) {
  const auto at_sep = in.find(separator);
  if (at_sep == std::string_view::npos) return {in, {}};
  return {in.substr(0, at_sep), in.substr(at_sep + separator.size())};
}

void fail(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "fuzz property failed: %.*s\n%.*s\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

std::string describe(const Diagnostic& d) {
  return d.location.file + ":" + std::to_string(d.location.line) + ":" + std::to_string(d.location.col) +
         " [" + d.rule_id + "] " + d.field_path + ": " + d.message +
         (d.hint.empty() ? "" : " | hint: " + d.hint);
}

std::string dump(const yaml::ReadResult& result) {
  std::string out = "empty=" + std::to_string(result.empty_documents) + "\n";
  for (const auto& d : result.findings) out += describe(d) + "\n";
  for (const auto& doc : result.documents) {
    out += "doc " + doc.file + " #" + std::to_string(doc.index) + " @" + at(doc.start) + "\n";
    dump_node(doc.root, "  ", out);
  }
  return out;
}

}  // namespace kpt::fuzz
