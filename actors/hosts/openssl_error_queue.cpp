// OpenSSL requires the calling thread's error queue to be empty before SSL_read, SSL_write,
// SSL_connect or SSL_accept: SSL_get_error() afterwards reports whatever the queue holds. CAF
// 0.17's libcaf_openssl (caf/openssl/session.cpp) never clears it, and serves every connection
// from one multiplexer thread; so the first connection that ends with an error on the queue — a
// host killed mid-campaign (OpenSSL 3 queues "unexpected EOF"), or a stranger's refused
// handshake — makes the next read of every *other* connection look like a TLS error, and CAF
// closes them all one after another: every host is lost at once. Seen on loopback with three
// hosts, one killed (tests/actors/hosts/loopback_campaign.sh).
//
// The fix CAF lacks, put where CAF's calls land: these four functions stand in front of
// libssl's (the executable's definitions interpose the shared library's), clear the queue, and
// call libssl's own (dlsym RTLD_NEXT). Clearing before an I/O call is what OpenSSL's manual asks
// of every caller, so the process's other TLS users (the LLM client) lose nothing.

#include "actors/hosts/network.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <dlfcn.h>

namespace {

template <class Function>
Function libssl(const char* name) {
  static_assert(std::is_pointer_v<Function>);
  return reinterpret_cast<Function>(::dlsym(RTLD_NEXT, name));
}

} // namespace

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

} // extern "C"

namespace warpforge::actors::hosts {

bool clears_openssl_error_queue() {
  return true;
}

} // namespace warpforge::actors::hosts
