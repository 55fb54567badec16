#ifndef PAGEBENCH_COPENSSL_SHIM_H
#define PAGEBENCH_COPENSSL_SHIM_H

// The system's OpenSSL (libssl, libcrypto): TLS for the HTTP client and `serve --tls-cert`
// (PagebenchTLS), SHA-256 and HMAC-SHA256 for SigV4 (PagebenchTargets).

#if __has_include(<openssl/ssl.h>)
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/opensslv.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#else
#error "pagebench uses the system's OpenSSL for HTTPS and SigV4, and its headers were not found. Install them: 'apt-get update && apt-get install -y libssl-dev' (Debian/Ubuntu), then build again."
#endif

#if OPENSSL_VERSION_NUMBER < 0x30000000L
#error "pagebench needs OpenSSL 3.0 or later (libssl-dev on Debian 12, Ubuntu 22.04)."
#endif

// OpenSSL macros Swift cannot import, as functions.

/// SNI: the host name the client asks for (SSL_set_tlsext_host_name).
static inline int pagebench_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// The oldest protocol version a context negotiates (SSL_CTX_set_min_proto_version).
static inline int pagebench_SSL_CTX_set_min_proto_version(SSL_CTX *context, int version) {
    return (int)SSL_CTX_set_min_proto_version(context, version);
}

/// Frees a connection's read and write buffers while it is idle (SSL_CTX_set_mode with
/// SSL_MODE_RELEASE_BUFFERS): a load test holds thousands of idle keep-alive connections.
static inline void pagebench_SSL_CTX_release_buffers(SSL_CTX *context) {
    SSL_CTX_set_mode(context, SSL_MODE_RELEASE_BUFFERS);
}

/// Refuses renegotiation on every connection of a context, as swift-nio-ssl does by default
/// (SSL_CTX_set_options with SSL_OP_NO_RENEGOTIATION): a TLS 1.2 peer cannot restart the
/// handshake in the middle of a connection.
static inline void pagebench_SSL_CTX_refuse_renegotiation(SSL_CTX *context) {
    SSL_CTX_set_options(context, SSL_OP_NO_RENEGOTIATION);
}

/// Lets a context renegotiate again, a server's clients included (tests only: they need a
/// renegotiation in progress).
static inline void pagebench_SSL_CTX_allow_renegotiation(SSL_CTX *context) {
    SSL_CTX_clear_options(context, SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_options(context, SSL_OP_ALLOW_CLIENT_RENEGOTIATION);
}

/// The newest protocol version a context negotiates (SSL_CTX_set_max_proto_version).
static inline int pagebench_SSL_CTX_set_max_proto_version(SSL_CTX *context, int version) {
    return (int)SSL_CTX_set_max_proto_version(context, version);
}

#endif
