#include "protocol/net/tls.hpp"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <fmt/format.h>

namespace ptc::net {

std::shared_ptr<SSL_CTX> make_tls_client_context(const std::string& ca_file, std::string* error) {
  std::shared_ptr<SSL_CTX> ctx(SSL_CTX_new(TLS_client_method()), SSL_CTX_free);
  if (!ctx) {
    ERR_clear_error();
    *error = "TLS is not available (SSL_CTX_new failed)";
    return nullptr;
  }
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  // A server that closes without close_notify ends the stream; the reply's
  // own framing (length, chunks, the SSE answer) tells a cut reply apart.
  SSL_CTX_set_options(ctx.get(), SSL_OP_IGNORE_UNEXPECTED_EOF);
  int ok = ca_file.empty() ? SSL_CTX_set_default_verify_paths(ctx.get())
                           : SSL_CTX_load_verify_locations(ctx.get(), ca_file.c_str(), nullptr);
  if (ok != 1) {
    ERR_clear_error();
    *error = ca_file.empty() ? "TLS: the system's trusted certificates could not be loaded"
                             : fmt::format("TLS: cannot load the CA file {}", ca_file);
    return nullptr;
  }
  return ctx;
}

bool expect_peer_name(SSL* ssl, const std::string& host) {
  in6_addr addr6;
  in_addr addr4;
  bool is_ip = ::inet_pton(AF_INET, host.c_str(), &addr4) == 1 ||
               ::inet_pton(AF_INET6, host.c_str(), &addr6) == 1;
  if (is_ip) return X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host.c_str()) == 1;
  return SSL_set_tlsext_host_name(ssl, host.c_str()) == 1 && SSL_set1_host(ssl, host.c_str()) == 1;
}

std::string tls_failure(SSL* ssl, const std::string& host, const std::string& port) {
  long verify = SSL_get_verify_result(ssl);
  unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (verify != X509_V_OK)
    return fmt::format("TLS: the certificate of {} is not trusted ({})", host,
                       X509_verify_cert_error_string(verify));
  const char* reason = e ? ERR_reason_error_string(e) : nullptr;
  return fmt::format("TLS with {}:{} failed ({})", host, port,
                     reason ? reason : "the connection closed");
}

}  // namespace ptc::net
