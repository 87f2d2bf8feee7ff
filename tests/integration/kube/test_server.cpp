#include "test_server.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kpt::kube::testing {

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "kpt-kube-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  m_path = tmpl;
}

TempDir::~TempDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  if (info != nullptr && info->result()->Failed()) {
    std::cerr << "kept test directory " << m_path << "\n";
    return;
  }
  std::error_code ec;
  std::filesystem::remove_all(m_path, ec);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Pki make_pki(const TempDir& dir) {
  const std::string d = dir.path().string();
  const std::string script =
      "set -e; cd '" + d +
      "'; "
      "K='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes'; "
      "openssl req -x509 $K -keyout ca.key -out ca.crt -days 1 -subj /CN=test-ca 2>/dev/null; "
      "openssl req $K -keyout server.key -out server.csr -subj /CN=kube.test 2>/dev/null; "
      "printf 'subjectAltName=DNS:kube.test\\n' > server.ext; "
      "openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt -days 1 "
      "-extfile server.ext 2>/dev/null; "
      "openssl req $K -keyout client.key -out client.csr -subj /CN=alice 2>/dev/null; "
      "openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out client.crt -days 1 "
      "2>/dev/null";
  if (std::system(script.c_str()) != 0) throw std::runtime_error("openssl failed in " + d);
  Pki p{dir.file("ca.crt"),
        dir.file("server.crt"),
        dir.file("server.key"),
        dir.file("client.crt"),
        dir.file("client.key"),
        {},
        {},
        {}};
  p.ca_pem = read_file(p.ca_crt);
  p.client_crt_pem = read_file(p.client_crt);
  p.client_key_pem = read_file(p.client_key);
  return p;
}

TestServer::TestServer(std::unique_ptr<httplib::Server> server) : m_server(std::move(server)) {}

void TestServer::start() {
  m_port = m_server->bind_to_any_port("127.0.0.1");
  if (m_port <= 0) throw std::runtime_error("cannot bind a loopback port");
  m_thread = std::thread([this] { m_server->listen_after_bind(); });
  while (!m_server->is_running()) std::this_thread::yield();
}

TestServer::~TestServer() {
  m_server->stop();
  if (m_thread.joinable()) m_thread.join();
}

}  // namespace kpt::kube::testing
