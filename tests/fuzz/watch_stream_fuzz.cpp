// The client's decoding of what a server sends: a watch stream cut into chunks at any points
// (events split across chunks, blank lines, ERROR events, bytes that are not JSON), a list page,
// and a Status error body. An error is fine; a crash, an exception or unbounded buffering is not.
#include "kube/http_transport.hpp"
#include "kube/rest_client.hpp"
#include "tests/fuzz/fuzz_support.hpp"

#include <algorithm>

using namespace kpt;

namespace {

/// Serves the fuzz input for every request: streamed in chunks of `chunk` bytes when the client
/// streams, whole otherwise, with the given HTTP status.
class FuzzTransport final : public kube::HttpTransport {
 public:
  FuzzTransport(std::string_view body, std::size_t chunk, int status)
      : m_body(body), m_chunk(chunk), m_status(status) {}

  Expected<kube::HttpResponse> send(const kube::HttpRequest& /*request*/, const kube::DataSink* sink,
                                    const std::atomic<bool>* /*cancel*/) override {
    kube::HttpResponse response;
    response.status = m_status;
    response.headers = {{"Content-Type", "application/json"}};
    if (sink == nullptr || m_status / 100 != 2) {
      response.body = std::string(m_body);
      return response;
    }
    for (std::size_t at = 0; at < m_body.size(); at += m_chunk)
      if (!(*sink)(m_body.substr(at, m_chunk))) break;
    return response;
  }
  [[nodiscard]] kube::TransportError last_error() const override { return {}; }

 private:
  std::string_view m_body;
  std::size_t m_chunk;
  int m_status;
};

std::unique_ptr<kube::RestClient> client_for(std::string_view body, std::size_t chunk, int status) {
  kube::ResolvedConfig config;
  config.server = "https://fuzz.invalid";
  kube::RestOptions options;
  options.max_retries = 0;
  options.sleep = [](std::chrono::milliseconds) {};
  options.jitter_seed = 1;
  return std::make_unique<kube::RestClient>(config, std::make_unique<FuzzTransport>(body, chunk, status),
                                            options);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > fuzz::k_max_input) return 0;
  static constexpr int k_statuses[] = {200, 200, 200, 200, 400, 404, 409, 410, 422, 429, 500, 503};
  const int status = k_statuses[data[0] % std::size(k_statuses)];
  const std::size_t chunk = 1 + data[0] / std::size(k_statuses);
  const auto body = fuzz::as_text(data + 1, size - 1);

  auto watching = client_for(body, chunk, status);
  std::size_t events = 0;
  auto watched = watching->watch(
      kube::resources::pods(), "default", {},
      [&events](const kube::WatchEvent&) { return ++events < 10'000; }, nullptr);
  if (!watched && watched.error().message.empty()) fuzz::fail("a watch error without a message");

  auto listing = client_for(body, chunk, status);
  kube::ListOptions one_page;
  one_page.limit = 10;
  auto listed = listing->list(kube::resources::pods(), "default", one_page);
  if (!listed && listed.error().message.empty()) fuzz::fail("a list error without a message");

  const auto error = kube::decode_status_error(status == 200 ? 500 : status, std::string(body), "GET");
  if (error.message.empty()) fuzz::fail("a status error without a message");
  return 0;
}
