#pragma once

#include "util/diagnostic.hpp"
#include "yaml/node.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace kpt::schema {

/// Collects one document's findings, stamping the file, and stops at a cap so a
/// hostile document cannot produce millions of them.
class FindingSink {
 public:
  FindingSink(const yaml::Document& doc, std::size_t cap) : m_doc(doc), m_cap(cap) {}

  void add(Severity severity, yaml::Position pos, std::string_view path, const char* rule,
           std::string message, std::string hint = {}) {
    if (m_full) return;
    if (m_out.size() == m_cap) {
      m_full = true;
      m_out.push_back({Severity::info,
                       {m_doc.file, m_doc.start.line, m_doc.start.col},
                       "",
                       "schema.too-many-findings",
                       "too many findings: stopped after " + std::to_string(m_cap),
                       ""});
      return;
    }
    m_out.push_back({severity,
                     {m_doc.file, pos.line, pos.col},
                     std::string(path),
                     rule,
                     std::move(message),
                     std::move(hint)});
  }
  void error(yaml::Position pos, std::string_view path, const char* rule, std::string message,
             std::string hint = {}) {
    add(Severity::error, pos, path, rule, std::move(message), std::move(hint));
  }
  [[nodiscard]] bool full() const { return m_full; }
  [[nodiscard]] const yaml::Document& doc() const { return m_doc; }
  Diagnostics take() { return std::move(m_out); }

 private:
  const yaml::Document& m_doc;
  std::size_t m_cap;
  bool m_full = false;
  Diagnostics m_out;
};

struct ObjectMetaOptions {
  bool unknown_fields_are_errors = true;
  bool require_name = true;  ///< false for embedded resources, whose name the API server does not require
};

/// Checks an object's `metadata` as the API server's ObjectMeta validation does on create:
/// name (DNS-1123 subdomain) or generateName, namespace, label and annotation keys and values,
/// and fields ObjectMeta does not have. `path` is the field path of the metadata node.
void check_object_meta(const yaml::Node& meta, const std::string& path, ObjectMetaOptions opts,
                       FindingSink& sink);

/// Appends `.key` (or `key` at the root) to a field path.
inline std::string child_path(std::string_view path, std::string_view key) {
  std::string out;
  out.reserve(path.size() + key.size() + 1);
  out.append(path);
  if (!path.empty()) out.push_back('.');
  out.append(key);
  return out;
}

}  // namespace kpt::schema
