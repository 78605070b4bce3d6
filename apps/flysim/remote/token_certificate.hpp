#pragma once
// Peer authentication of remote plasticity shards from a shared secret (a token file):
// CAF 0.17's OpenSSL module authenticates peers only by certificates (TLS 1.2, both
// sides must present one that chains to `openssl.cafile`; it has no pre-shared-key
// mode). Both sides therefore derive the same Ed25519 key from the token and the same
// self-signed certificate (Ed25519 signatures are deterministic, every field is fixed),
// and trust exactly that certificate: a peer without the token cannot finish the TLS
// handshake, so it never reaches CAF's message layer.
#include <string>

namespace flysim::app {

struct TokenCertificate {
  std::string certificate_pem;  // self-signed X.509, also the only trusted CA
  std::string private_key_pem;  // unencrypted PKCS#8
};

// Reads the token from `path` (a regular file; apps/flysim/remote/token_file.hpp says what a
// token is). Throws input_error naming `option` and the file when it cannot be read or
// is no token.
std::string read_token_file(const std::string& path, const std::string& option);

// The certificate and key of `token`: the same bytes for the same token.
TokenCertificate token_certificate(const std::string& token);

}  // namespace flysim::app
