#include "protocol/store/sealed_record.hpp"

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <stdexcept>

#include "embedding/snapshot.hpp"

namespace ptc::store {

namespace {

constexpr std::string_view kMagic = "psr1";
constexpr size_t kMacBytes = 32;

std::string mac(std::string_view key, std::string_view name, std::string_view payload) {
  std::string data;
  data.reserve(name.size() + 1 + payload.size());
  data += name;
  data += '\0';
  data += payload;
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
            reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len) ||
      len != kMacBytes)
    throw std::runtime_error("HMAC-SHA256 could not be computed");
  return std::string(reinterpret_cast<const char*>(out), len);
}

}  // namespace

std::string seal(std::string_view key, std::string_view name, std::string_view payload) {
  std::string out(kMagic);
  out += mac(key, name, payload);
  out += payload;
  return out;
}

std::optional<std::string> unseal(std::string_view key, std::string_view name,
                                  std::string_view sealed) {
  if (sealed.size() < kMagic.size() + kMacBytes || sealed.substr(0, kMagic.size()) != kMagic)
    return std::nullopt;
  std::string_view given = sealed.substr(kMagic.size(), kMacBytes);
  std::string_view payload = sealed.substr(kMagic.size() + kMacBytes);
  std::string expected = mac(key, name, payload);
  if (CRYPTO_memcmp(expected.data(), given.data(), kMacBytes) != 0) return std::nullopt;
  return std::string(payload);
}

std::string owner_namespace(std::string_view key, std::string_view owner) {
  std::string digest = mac(key, "owner", owner);
  std::string hex;
  for (size_t i = 0; i < 16; ++i)
    hex += fmt::format("{:02x}", static_cast<unsigned char>(digest[i]));
  return hex;
}

RecordWriter& RecordWriter::u64(uint64_t v) {
  do {
    unsigned char byte = v & 0x7f;
    v >>= 7;
    if (v) byte |= 0x80;
    out_ += static_cast<char>(byte);
  } while (v);
  return *this;
}

RecordWriter& RecordWriter::i64(int64_t v) {
  return u64((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}

RecordWriter& RecordWriter::str(std::string_view s) {
  u64(s.size());
  out_ += s;
  return *this;
}

RecordWriter& RecordWriter::value(const HostValue& v) {
  return str(encode_value(v));
}

uint64_t RecordReader::u64() {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (at_ >= in_.size()) throw std::runtime_error("the record ends early");
    auto byte = static_cast<unsigned char>(in_[at_++]);
    v |= uint64_t{byte & 0x7fu} << shift;
    if (!(byte & 0x80)) return v;
  }
  throw std::runtime_error("a number in the record is too long");
}

int64_t RecordReader::i64() {
  uint64_t z = u64();
  return static_cast<int64_t>((z >> 1) ^ (~(z & 1) + 1));
}

std::string RecordReader::str() {
  uint64_t n = u64();
  if (n > in_.size() - at_) throw std::runtime_error("a string in the record runs past its end");
  std::string s(in_.substr(at_, n));
  at_ += n;
  return s;
}

HostValue RecordReader::value() {
  try {
    return decode_value(str());
  } catch (const LispError& e) {
    throw std::runtime_error(fmt::format("a value in the record is malformed: {}", e.what()));
  }
}

}  // namespace ptc::store
