#include "apps/flysim/remote/token_certificate.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <functional>
#include <memory>
#include <stdexcept>

#include "apps/flysim/remote/token_file.hpp"
#include "model/errors.hpp"
#include "io/input_file.hpp"

namespace flysim::app {

namespace {

template <class T, void (*Free)(T*)>
struct Freer {
  void operator()(T* p) const { Free(p); }
};
using Key = std::unique_ptr<EVP_PKEY, Freer<EVP_PKEY, EVP_PKEY_free>>;
using Certificate = std::unique_ptr<X509, Freer<X509, X509_free>>;
using Bio = std::unique_ptr<BIO, Freer<BIO, BIO_free_all>>;

void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("token certificate: ") + what + " failed");
}

std::string pem_of(const std::function<int(BIO*)>& write) {
  Bio bio(BIO_new(BIO_s_mem()));
  check(bio != nullptr && write(bio.get()) == 1, "PEM encoding");
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

}  // namespace

std::string read_token_file(const std::string& path, const std::string& option) {
  std::string text;
  try {
    text = read_input_file(path, "the token file");
  } catch (const input_error& e) {
    throw input_error("option " + option + ": " + e.what());
  }
  const std::string token = token_in(text);
  if (const std::string problem = token_problem(token); !problem.empty())
    throw input_error("option " + option + ": " + path + " " + problem);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && (st.st_mode & 077) != 0)
    spdlog::warn("{}: the token file can be read by other users (chmod 600 {})", path, path);
  return token;
}

TokenCertificate token_certificate(const std::string& token) {
  // A domain prefix keeps this key apart from any other use of the same secret.
  const std::string input = std::string("flysim shard token v1") + '\0' + token;
  unsigned char seed[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(input.data()), input.size(), seed);
  Key key(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, seed, sizeof seed));
  check(key != nullptr, "deriving the key");

  Certificate cert(X509_new());
  check(cert != nullptr && X509_set_version(cert.get(), 2) == 1, "creating the certificate");
  check(ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1) == 1, "setting the serial");
  // Fixed validity (GeneralizedTime) so that both sides make the same bytes.
  check(ASN1_TIME_set_string(X509_getm_notBefore(cert.get()), "20000101000000Z") == 1 &&
            ASN1_TIME_set_string(X509_getm_notAfter(cert.get()), "99991231235959Z") == 1,
        "setting the validity");
  X509_NAME* name = X509_get_subject_name(cert.get());
  check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("flysim shard token"), -1,
                                   -1, 0) == 1,
        "naming the certificate");
  check(X509_set_issuer_name(cert.get(), name) == 1 && X509_set_pubkey(cert.get(), key.get()) == 1, "filling the certificate");
  check(X509_sign(cert.get(), key.get(), nullptr) > 0, "signing the certificate");  // Ed25519 takes no digest

  TokenCertificate out;
  out.certificate_pem = pem_of([&](BIO* b) { return PEM_write_bio_X509(b, cert.get()); });
  out.private_key_pem =
      pem_of([&](BIO* b) { return PEM_write_bio_PrivateKey(b, key.get(), nullptr, nullptr, 0, nullptr, nullptr); });
  OPENSSL_cleanse(seed, sizeof seed);
  return out;
}

}  // namespace flysim::app
