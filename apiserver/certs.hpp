#pragma once

#include "util/expected.hpp"

#include <string>
#include <vector>

namespace kpt::apiserver {

/// A generated CA and a serving certificate it signed, PEM encoded. Keys are secrets:
/// write them with mode 0600 and never log them.
struct ServerCertificates {
  std::string ca_cert_pem;
  std::string ca_key_pem;
  std::string cert_pem;
  std::string key_pem;
};

/// Generates an ECDSA P-256 CA and a serving certificate for `dns_names` and `ip_addresses`
/// (defaults: localhost, 127.0.0.1, ::1), valid for `days`.
Expected<ServerCertificates> generate_certificates(
    const std::vector<std::string>& dns_names = {"localhost"},
    const std::vector<std::string>& ip_addresses = {"127.0.0.1", "::1"}, int days = 365);

/// A random bearer token (32 bytes from the OS RNG, hex encoded).
Expected<std::string> generate_token();

}  // namespace kpt::apiserver
