// The API server's patch decoding and application on any object and patch text: the first byte
// picks merge, JSON, strategic merge or apply, then "base JSON\n%%\npatch body". Decoding and
// applying return a result or an error, never throw; a merge patch applied twice changes nothing
// the second time (RFC 7386 patches are idempotent), and neither does a strategic merge patch with
// a Pod's list strategies (merging by key, unions, deletes and orders are idempotent too). The
// strategic merge Trainer's typed patches use (no directives, no checks) runs on each too.
//
// A first byte of 0x80 or more makes the input deep: the next two bytes give N (below the server's
// JSON depth limit), and the base and the patch (not a JSON patch, which must stay a list) are
// each nested in N maps {"a":...}, so the fuzzer reaches the depths a request body may have, which
// its mutations of small inputs never build. A strategic merge patch 7,000 deep once overflowed
// the stack. The corpus's deep-* seeds were written once by this Python:
//   n = 9998; open("deep-strategic-maps", "w").write("2{\"data\":{\"k\":\"v\"}}\n%%\n{\"data\":"
//       + '{"a":' * n + '{}' + '}' * n + "}")
#include "apiserver/body_limits.hpp"
#include "apiserver/patch.hpp"
#include "model/k8s/strategic_merge.hpp"
#include "tests/fuzz/fuzz_support.hpp"

#include <pthread.h>

using namespace kpt;
using json = nlohmann::json;

namespace {

std::string nested(std::string_view text, std::size_t levels) {
  std::string out;
  out.reserve(text.size() + levels * 6);
  for (std::size_t i = 0; i < levels; ++i) out += "{\"a\":";
  out += text;
  out.append(levels, '}');
  return out;
}

}  // namespace

static void one_input(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > fuzz::k_max_input) return;
  static constexpr apiserver::PatchKind k_kinds[] = {apiserver::PatchKind::merge, apiserver::PatchKind::json,
                                                     apiserver::PatchKind::strategic,
                                                     apiserver::PatchKind::apply};
  const auto kind = k_kinds[data[0] % std::size(k_kinds)];
  std::size_t levels = 0;
  std::size_t skip = 1;
  if (data[0] >= 0x80 && size >= 3) {
    levels = ((std::size_t{data[1]} << 8) | data[2]) % (apiserver::k_max_json_depth - 8);
    skip = 3;
  }
  const auto [base_text, patch_text] = fuzz::split_once(fuzz::as_text(data + skip, size - skip), "\n%%\n");
  auto base = json::parse(nested(base_text, levels), nullptr, false);
  if (base.is_discarded()) base = json::object();

  const std::string patch_body =
      kind == apiserver::PatchKind::json ? std::string(patch_text) : nested(patch_text, levels);
  auto patch = apiserver::parse_patch_body(kind, patch_body);
  if (!patch) return;
  static const auto* const k_pod = apiserver::builtin_patch_strategies("v1", "Pod");
  if (kind == apiserver::PatchKind::strategic) {
    // The same merge as Trainer applies its typed patches: it refuses nothing, so it must succeed.
    if (!model::k8s::strategic_merge(base, patch.value(), *k_pod, model::k8s::k_typed_patch))
      fuzz::fail("a typed strategic merge failed", patch.value().dump());
  }
  auto once = apiserver::apply_patch(kind, base, patch.value(), k_pod);
  if (!once || (kind != apiserver::PatchKind::merge && kind != apiserver::PatchKind::strategic)) return;
  auto twice = apiserver::apply_patch(kind, once.value(), patch.value(), k_pod);
  if (!twice || twice.value() != once.value())
    fuzz::fail("a merge patch is not idempotent", patch.value().dump());
}

// The server walks a request on a thread with a 32 MiB stack (apiserver/worker_pool.cpp); the fuzz
// target does the same on a larger one, as ASan's frames are several times a normal build's.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  struct Input {
    const std::uint8_t* data;
    std::size_t size;
  } input{data, size};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, std::size_t{256} << 20);
  pthread_t thread;
  const int rc = pthread_create(
      &thread, &attr,
      [](void* arg) -> void* {
        const auto* in = static_cast<const Input*>(arg);
        one_input(in->data, in->size);
        return nullptr;
      },
      &input);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    one_input(data, size);
    return 0;
  }
  pthread_join(thread, nullptr);
  return 0;
}
