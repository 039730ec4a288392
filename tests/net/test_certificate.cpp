#include "tests/net/test_certificate.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace ptc::net::testing {

namespace {

void require(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("test certificate: ") + what);
}

void add_extension(X509* certificate, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, certificate, certificate, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  require(extension && X509_add_ext(certificate, extension, -1) == 1, "an extension");
  X509_EXTENSION_free(extension);
}

}  // namespace

TestCertificate::TestCertificate(const std::string& names) {
  key_.reset(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"), EVP_PKEY_free);
  require(key_ != nullptr, "the key");
  certificate_.reset(X509_new(), X509_free);
  X509* cert = certificate_.get();
  require(cert && X509_set_version(cert, 2) == 1, "the certificate");
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), -60);
  X509_gmtime_adj(X509_getm_notAfter(cert), 24 * 3600);
  X509_NAME* subject = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("ptc-lisp test"), -1, -1, 0);
  X509_set_issuer_name(cert, subject);
  X509_set_pubkey(cert, key_.get());
  add_extension(cert, NID_basic_constraints, "critical,CA:TRUE");
  add_extension(cert, NID_subject_alt_name, names.c_str());
  require(X509_sign(cert, key_.get(), EVP_sha256()) > 0, "the signature");

  char path[] = "/tmp/ptc-net-test-ca-XXXXXX";
  int fd = ::mkstemp(path);
  require(fd >= 0, "the CA file");
  FILE* file = ::fdopen(fd, "w");
  require(file && PEM_write_X509(file, cert) == 1, "writing the CA file");
  std::fclose(file);
  ca_file_ = path;
}

TestCertificate::~TestCertificate() {
  ::unlink(ca_file_.c_str());
}

std::shared_ptr<SSL_CTX> TestCertificate::server_context() const {
  std::shared_ptr<SSL_CTX> ctx(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
  require(ctx && SSL_CTX_use_certificate(ctx.get(), certificate_.get()) == 1 &&
              SSL_CTX_use_PrivateKey(ctx.get(), key_.get()) == 1,
          "the server context");
  return ctx;
}

}  // namespace ptc::net::testing
