// The kubeconfig loader on any text: parsing, kubectl's first-wins merge of two files named by
// $KUBECONFIG, and resolving the current context (flags, files it points to, in-cluster
// fallback). An error is fine; a crash, a hang or an error without a message is not.
#include "kube/file_system.hpp"
#include "kube/resolved_config.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "tests/support/memory_file_system.hpp"

using namespace kpt;

namespace {

/// Bytes after this line go into a second kubeconfig file, merged after the first.
constexpr std::string_view k_second_file = "\n#--- second file\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > fuzz::k_max_input) return 0;
  const auto [first, second] = fuzz::split_once(fuzz::as_text(data, size), k_second_file);
  kube::MemoryFileSystem fs;
  fs.add("/home/u/.kube/a", std::string(first));
  fs.add("/home/u/.kube/b", std::string(second));
  fs.add("/home/u/.kube/ca.crt", "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n");
  fs.add("/home/u/.kube/token", "t0ken\n");

  kube::ResolveInputs in;
  in.env = {{"KUBECONFIG", "/home/u/.kube/a:/home/u/.kube/b"}, {"HOME", "/home/u"}};
  in.cwd = "/home/u";
  in.service_account_dir = "/nonexistent";
  auto resolved = kube::load_and_resolve(in, fs);
  if (!resolved && resolved.error().message.empty()) fuzz::fail("a kubeconfig error without a message");

  auto parsed = kube::parse_kubeconfig("/home/u/.kube/a", std::string(first));
  if (!parsed && parsed.error().message.rfind("error loading config file \"/home/u/.kube/a\": ", 0) != 0)
    fuzz::fail("a parse error that does not name its file as kubectl does", parsed.error().message);
  return 0;
}
