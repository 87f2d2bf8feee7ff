#include "yaml/input_files.hpp"

#include "util/file_io.hpp"
#include "util/strings.hpp"
#include "yaml/manifest_extensions.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <istream>
#include <system_error>

namespace kpt::yaml {
namespace {

constexpr std::size_t k_chunk = 64 * 1024;

class DiskReader final : public FileReader {
 public:
  Kind kind(const std::string& path) override {
    std::error_code ec;
    const auto st = std::filesystem::status(path, ec);
    if (ec) {
      // Not "missing" when the path exists but cannot be looked at: let read() say why.
      return ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory ? Kind::missing
                                                                                            : Kind::file;
    }
    switch (st.type()) {
      case std::filesystem::file_type::not_found:
        return Kind::missing;
      case std::filesystem::file_type::directory:
        return Kind::directory;
      case std::filesystem::file_type::regular:
        return Kind::file;
      default:
        return Kind::other;  // fifos such as <(cat job.yaml): read like files
    }
  }

  Expected<std::string> read(const std::string& path, std::size_t max_bytes) override {
    return util::read_file(path, max_bytes);
  }

  Expected<std::vector<std::string>> manifests_under(const std::string& dir) override {
    std::vector<std::string> out;
    std::error_code ec;
    std::filesystem::recursive_directory_iterator it(dir, ec);
    for (; !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      std::error_code type_ec;
      if (it->is_regular_file(type_ec) && has_manifest_extension(it->path().native())) {
        out.push_back(it->path().string());
      }
    }
    if (ec) return make_error(ErrorCode::io, ec.message());
    std::sort(out.begin(), out.end());
    return out;
  }
};

Expected<InputFile> read_stdin(std::istream& in, std::size_t max_bytes) {
  std::string text;
  const std::size_t limit = max_bytes + 1;
  char buf[k_chunk];
  while (text.size() < limit && in) {
    in.read(buf, static_cast<std::streamsize>(std::min(k_chunk, limit - text.size())));
    text.append(buf, static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) return make_error(ErrorCode::io, "reading stdin: read error");
  InputFile file{"<stdin>", nullptr, text.size() > max_bytes};
  if (file.too_large) text.resize(max_bytes);
  file.text = std::make_shared<const std::string>(std::move(text));
  return file;
}

Expected<InputFile> read_input(FileReader& fs, const std::string& path, std::size_t max_bytes) {
  auto text = fs.read(path, max_bytes);
  if (!text) return text.error().context("reading " + util::quote(path, std::string::npos));
  InputFile file{path, nullptr, text->size() > max_bytes};
  if (file.too_large) text->resize(max_bytes);
  file.text = std::make_shared<const std::string>(std::move(*text));
  return file;
}

}  // namespace

std::unique_ptr<FileReader> make_disk_reader() { return std::make_unique<DiskReader>(); }

Expected<std::vector<InputFile>> collect_inputs(const std::vector<std::string>& args, FileReader& fs,
                                                std::istream& stdin_stream, std::size_t max_bytes) {
  std::vector<InputFile> out;
  bool stdin_used = false;
  for (const auto& arg : args) {
    if (arg == "-") {
      if (stdin_used) return make_error(ErrorCode::usage, "'-' (stdin) given more than once");
      stdin_used = true;
      auto file = read_stdin(stdin_stream, max_bytes);
      if (!file) return file.error();
      out.push_back(std::move(*file));
      continue;
    }
    switch (fs.kind(arg)) {
      case FileReader::Kind::missing:
        return make_error(ErrorCode::io,
                          "reading " + util::quote(arg, std::string::npos) + ": " + std::strerror(ENOENT));
      case FileReader::Kind::directory: {
        auto paths = fs.manifests_under(arg);
        if (!paths) return paths.error().context("listing " + util::quote(arg, std::string::npos));
        if (paths->empty()) {
          return make_error(ErrorCode::usage,
                            "no .yaml, .yml or .json files under " + util::quote(arg, std::string::npos));
        }
        for (const auto& path : *paths) {
          auto file = read_input(fs, path, max_bytes);
          if (!file) return file.error();
          out.push_back(std::move(*file));
        }
        break;
      }
      case FileReader::Kind::file:
      case FileReader::Kind::other: {
        auto file = read_input(fs, arg, max_bytes);
        if (!file) return file.error();
        out.push_back(std::move(*file));
        break;
      }
    }
  }
  return out;
}

}  // namespace kpt::yaml
