#include "apiserver/certs.hpp"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

namespace kpt::apiserver {

namespace {

struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct CertFree {
  void operator()(X509* c) const { X509_free(c); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyFree>;
using CertPtr = std::unique_ptr<X509, CertFree>;

Error tls_error(const std::string& what) {
  return make_error(ErrorCode::internal, "generating certificates: " + what);
}

bool add_ext(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) return false;
  const bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

CertPtr make_cert(EVP_PKEY* key, const std::string& cn, int days) {
  CertPtr cert(X509_new());
  if (!cert) return nullptr;
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1) return nullptr;
  serial[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(days) * 24 * 3600);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn.c_str()), -1,
                             -1, 0);
  return cert;
}

std::string pem_of_cert(X509* cert) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(bio.get(), cert);
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(len));
}

std::string pem_of_key(EVP_PKEY* key) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(len));
}

}  // namespace

Expected<ServerCertificates> generate_certificates(const std::vector<std::string>& dns_names,
                                                   const std::vector<std::string>& ip_addresses, int days) {
  KeyPtr ca_key(EVP_EC_gen("P-256"));
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!ca_key || !key) return tls_error("key generation failed");

  CertPtr ca = make_cert(ca_key.get(), "kubectl-pytorch-local-ca", days);
  if (!ca) return tls_error("CA certificate creation failed");
  X509_set_issuer_name(ca.get(), X509_get_subject_name(ca.get()));
  if (!add_ext(ca.get(), ca.get(), NID_basic_constraints, "critical,CA:TRUE") ||
      !add_ext(ca.get(), ca.get(), NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature") ||
      !add_ext(ca.get(), ca.get(), NID_subject_key_identifier, "hash")) {
    return tls_error("CA extensions failed");
  }
  if (X509_sign(ca.get(), ca_key.get(), EVP_sha256()) == 0) return tls_error("signing the CA failed");

  CertPtr cert = make_cert(key.get(), "kubectl-pytorch-local-apiserver", days);
  if (!cert) return tls_error("serving certificate creation failed");
  X509_set_issuer_name(cert.get(), X509_get_subject_name(ca.get()));
  std::string san;
  for (const auto& d : dns_names) san += (san.empty() ? "" : ",") + std::string("DNS:") + d;
  for (const auto& ip : ip_addresses) san += (san.empty() ? "" : ",") + std::string("IP:") + ip;
  if (!add_ext(cert.get(), ca.get(), NID_basic_constraints, "critical,CA:FALSE") ||
      !add_ext(cert.get(), ca.get(), NID_key_usage, "critical,digitalSignature,keyEncipherment") ||
      !add_ext(cert.get(), ca.get(), NID_ext_key_usage, "serverAuth") ||
      !add_ext(cert.get(), ca.get(), NID_authority_key_identifier, "keyid:always") ||
      (!san.empty() && !add_ext(cert.get(), ca.get(), NID_subject_alt_name, san))) {
    return tls_error("serving certificate extensions failed");
  }
  if (X509_sign(cert.get(), ca_key.get(), EVP_sha256()) == 0)
    return tls_error("signing the serving certificate failed");

  return ServerCertificates{pem_of_cert(ca.get()), pem_of_key(ca_key.get()), pem_of_cert(cert.get()),
                            pem_of_key(key.get())};
}

Expected<std::string> generate_token() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1)
    return make_error(ErrorCode::internal, "generating a token failed");
  static const char k_hex[] = "0123456789abcdef";
  std::string out;
  for (const unsigned char b : bytes) {
    out += k_hex[b >> 4];
    out += k_hex[b & 15];
  }
  return out;
}

}  // namespace kpt::apiserver
