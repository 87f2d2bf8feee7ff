#pragma once

#include <httplib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <thread>

namespace kpt::kube::testing {

/// A temporary folder, removed unless the test failed (then its path is printed).
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }
  [[nodiscard]] std::string file(const std::string& name) const { return (m_path / name).string(); }

 private:
  std::filesystem::path m_path;
};

/// A CA, a server certificate for `kube.test` only (not for 127.0.0.1) and a client certificate for
/// `alice`, made with the openssl command line in `dir`.
struct Pki {
  std::string ca_crt, server_crt, server_key, client_crt, client_key;  ///< file paths
  std::string ca_pem, client_crt_pem, client_key_pem;                  ///< contents
};
Pki make_pki(const TempDir& dir);

/// An httplib server on a free loopback port, run on its own thread.
class TestServer {
 public:
  explicit TestServer(std::unique_ptr<httplib::Server> server);
  ~TestServer();
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;
  httplib::Server& http() { return *m_server; }
  void start();
  [[nodiscard]] int port() const { return m_port; }

 private:
  std::unique_ptr<httplib::Server> m_server;
  std::thread m_thread;
  int m_port = 0;
};

std::string read_file(const std::string& path);

}  // namespace kpt::kube::testing
