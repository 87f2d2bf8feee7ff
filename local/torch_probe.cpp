#include "local/torch_probe.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace kpt::local {

namespace {

int major_of(std::string_view version) {
  int major = 0;
  std::size_t i = 0;
  for (; i < version.size() && version[i] >= '0' && version[i] <= '9'; ++i)
    major = major * 10 + (version[i] - '0');
  return i == 0 ? -1 : major;
}

int minor_of(std::string_view version) {
  const auto dot = version.find('.');
  return dot == std::string_view::npos ? -1 : major_of(version.substr(dot + 1));
}

/// "python3.11" (the target of /usr/bin/python3) -> "3.11".
std::string python_version_of(const std::filesystem::path& python3) {
  std::error_code ec;
  const auto target = std::filesystem::canonical(python3, ec);
  if (ec) return {};
  const std::string name = target.filename().string();
  return name.rfind("python", 0) == 0 ? name.substr(6) : std::string{};
}

/// `__version__ = '1.13.0a0'` from a torch/version.py.
std::string torch_version_in(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("__version__", 0) != 0) continue;
    const auto open = line.find_first_of("'\"");
    const auto close = open == std::string::npos ? open : line.find(line[open], open + 1);
    if (close != std::string::npos) return line.substr(open + 1, close - open - 1);
  }
  return {};
}

}  // namespace

std::vector<std::string> torchrun_workaround_env(std::string_view torch_version,
                                                 std::string_view python_version) {
  const int torch_major = major_of(torch_version);
  const int py_major = major_of(python_version);
  const int py_minor = minor_of(python_version);
  const bool python_3_11_or_later = py_major > 3 || (py_major == 3 && py_minor >= 11);
  if (torch_major < 0 || torch_major >= 2 || !python_3_11_or_later) return {};
  return {"PET_REDIRECTS=1", "PET_TEE=1"};
}

std::pair<std::string, std::string> probe_local_torch(const std::string& path) {
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::filesystem::path python3 = std::filesystem::path(dir) / "python3";
    std::error_code ec;
    if (!std::filesystem::exists(python3, ec)) continue;
    const std::string python = python_version_of(python3);
    // In sys.path's order: pip's /usr/local/lib/python3.X, then Debian's /usr/lib/python3.
    const std::filesystem::path prefix = std::filesystem::path(dir).parent_path();
    for (const auto& site :
         {std::filesystem::path("/usr/local/lib/python" + python) / "dist-packages",
          prefix / "lib/python3/dist-packages", prefix / ("lib/python" + python) / "dist-packages",
          prefix / ("lib/python" + python) / "site-packages"}) {
      auto torch = torch_version_in(site / "torch/version.py");
      if (!torch.empty()) return {torch, python};
    }
    return {{}, python};
  }
  return {};
}

}  // namespace kpt::local
