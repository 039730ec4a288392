// A self-signed certificate made at test time with the OpenSSL API (an EC
// P-256 key, valid for a day), for the HTTP client's TLS tests: the server
// presents it, and the client trusts it through a CA file, or does not.
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <string>

namespace ptc::net::testing {

class TestCertificate {
 public:
  // `names`: the subjectAltName entries, e.g. "IP:127.0.0.1,DNS:localhost".
  explicit TestCertificate(const std::string& names);
  ~TestCertificate();  // removes the CA file
  TestCertificate(const TestCertificate&) = delete;
  TestCertificate& operator=(const TestCertificate&) = delete;

  // A server context presenting the certificate.
  std::shared_ptr<SSL_CTX> server_context() const;
  // A PEM file holding the certificate, for HttpOptions::ca_file.
  const std::string& ca_file() const { return ca_file_; }

 private:
  std::shared_ptr<EVP_PKEY> key_;
  std::shared_ptr<X509> certificate_;
  std::string ca_file_;
};

}  // namespace ptc::net::testing
