// CAF 0.17's OpenSSL module calls SSL_get_error after a failed SSL_read, SSL_write,
// SSL_connect or SSL_accept without first emptying the thread's error queue, which
// OpenSSL requires (SSL_get_error(3)). All connections share the middleman's one
// thread, so the error a dead peer leaves there reads as a failure of the next live
// connection that thread serves, and CAF closes that one too: a screen lost every
// worker when one was killed. These definitions take the place of libssl's for the
// whole process (the executable's symbols come first) and empty the queue before each
// call; the calls themselves are libssl's.
#include <dlfcn.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <cstdlib>
#include <cstdio>

namespace {
template <class F>
F libssl(const char* name) {
  void* f = ::dlsym(RTLD_NEXT, name);
  if (!f) {
    std::fprintf(stderr, "flysim: internal error: libssl has no %s\n", name);
    std::abort();
  }
  return reinterpret_cast<F>(f);
}
}  // namespace

extern "C" {

int SSL_read(SSL* ssl, void* buf, int num) {
  static const auto real = libssl<int (*)(SSL*, void*, int)>("SSL_read");
  ERR_clear_error();
  return real(ssl, buf, num);
}

int SSL_write(SSL* ssl, const void* buf, int num) {
  static const auto real = libssl<int (*)(SSL*, const void*, int)>("SSL_write");
  ERR_clear_error();
  return real(ssl, buf, num);
}

int SSL_connect(SSL* ssl) {
  static const auto real = libssl<int (*)(SSL*)>("SSL_connect");
  ERR_clear_error();
  return real(ssl);
}

int SSL_accept(SSL* ssl) {
  static const auto real = libssl<int (*)(SSL*)>("SSL_accept");
  ERR_clear_error();
  return real(ssl);
}

}  // extern "C"
