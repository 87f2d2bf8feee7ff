#include "local/log_store.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kpt::local {

std::string LogStore::path(const std::string& ns, const std::string& pod, const std::string& uid,
                           const std::string& container, int run) const {
  return m_root + "/" + ns + "_" + pod + "_" + uid + "/" + container + "/" + std::to_string(run) + ".log";
}

Expected<void> LogStore::prepare(const std::string& ns, const std::string& pod, const std::string& uid,
                                 const std::string& container, int run) const {
  std::error_code ec;
  const auto dir = std::filesystem::path(path(ns, pod, uid, container, run)).parent_path();
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error(ErrorCode::io, "creating '" + dir.string() + "': " + ec.message());
  return {};
}

std::string LogStore::tail(const std::string& text, std::int64_t n) {
  if (n < 0) return text;
  if (n == 0) return {};
  std::size_t pos = text.size();
  if (pos > 0 && text[pos - 1] == '\n') --pos;  // a final newline does not start a line
  std::int64_t seen = 0;
  while (pos > 0) {
    const auto nl = text.rfind('\n', pos - 1);
    if (nl == std::string::npos) return text;
    if (++seen == n) return text.substr(nl + 1);
    pos = nl;
  }
  return text;
}

Expected<std::string> LogStore::read(const std::string& file, const ReadOptions& opts) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return make_error(ErrorCode::not_found, "no log at '" + file + "'");
  std::ostringstream buf;
  buf << in.rdbuf();
  std::string text = buf.str();
  if (opts.tail_lines) text = tail(text, *opts.tail_lines);
  if (opts.limit_bytes && *opts.limit_bytes >= 0 &&
      text.size() > static_cast<std::size_t>(*opts.limit_bytes)) {
    text.resize(static_cast<std::size_t>(*opts.limit_bytes));
  }
  return text;
}

}  // namespace kpt::local
