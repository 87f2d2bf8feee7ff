#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kpt::local {

/// Env a local torchrun needs that a cluster image would not: Debian 12's torch 1.13 on Python
/// 3.11 fails at worker start with torchrun's default `--redirects 0 --tee 0` (Python 3.11 no
/// longer yields zero-valued IntFlag members, so `Std.from_str("0")` is None); `1` works. Torch 2.0
/// (the first release for Python 3.11) fixed it, so newer installs get nothing.
/// `torch_version` as torch/version.py writes it ("1.13.0a0"), `python_version` "3.11"; empty when
/// not found.
std::vector<std::string> torchrun_workaround_env(std::string_view torch_version,
                                                 std::string_view python_version);

/// The torch and Python versions of the `python3` a pod's PATH finds first, read from the files
/// (no interpreter is started): {torch, python}, each empty when not found.
std::pair<std::string, std::string> probe_local_torch(const std::string& path);

}  // namespace kpt::local
