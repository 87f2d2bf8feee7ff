// The API server's patch decoding and application on any object and patch text: the first byte
// picks merge, JSON, strategic merge or apply, then "base JSON\n%%\npatch body". Decoding and
// applying return a result or an error, never throw; a merge patch applied twice changes nothing
// the second time (RFC 7386 patches are idempotent), and neither does a strategic merge patch with
// a Pod's list strategies (merging by key, unions, deletes and orders are idempotent too).
#include "apiserver/patch.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace kpt;
using json = nlohmann::json;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > fuzz::k_max_input) return 0;
  static constexpr apiserver::PatchKind k_kinds[] = {apiserver::PatchKind::merge, apiserver::PatchKind::json,
                                                     apiserver::PatchKind::strategic,
                                                     apiserver::PatchKind::apply};
  const auto kind = k_kinds[data[0] % std::size(k_kinds)];
  const auto [base_text, patch_text] = fuzz::split_once(fuzz::as_text(data + 1, size - 1), "\n%%\n");
  auto base = json::parse(base_text, nullptr, false);
  if (base.is_discarded()) base = json::object();

  auto patch = apiserver::parse_patch_body(kind, std::string(patch_text));
  if (!patch) return 0;
  static const auto* const k_pod = apiserver::builtin_patch_strategies("v1", "Pod");
  auto once = apiserver::apply_patch(kind, base, patch.value(), k_pod);
  if (!once || (kind != apiserver::PatchKind::merge && kind != apiserver::PatchKind::strategic)) return 0;
  auto twice = apiserver::apply_patch(kind, once.value(), patch.value(), k_pod);
  if (!twice || twice.value() != once.value())
    fuzz::fail("a merge patch is not idempotent", patch.value().dump());
  return 0;
}
