// The client side of TLS: what is trusted (TLS 1.2 or later, the peer
// verified against the system's CAs or a CA file) and what the certificate
// must name (the host, by DNS name with SNI or by IP address).
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <string>

namespace ptc::net {

// A client context, or null with *error saying why (TLS unavailable, the CA
// file or the system's CAs unreadable).
std::shared_ptr<SSL_CTX> make_tls_client_context(const std::string& ca_file, std::string* error);
// Makes `ssl` send `host` as SNI (a name) and accept only a certificate
// naming it. False when OpenSSL refuses.
bool expect_peer_name(SSL* ssl, const std::string& host);
// Why a TLS call on `ssl` failed, for a person: an untrusted certificate
// says which check failed. Clears OpenSSL's error queue.
std::string tls_failure(SSL* ssl, const std::string& host, const std::string& port);

}  // namespace ptc::net
