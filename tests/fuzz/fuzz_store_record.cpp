// What replicas read back from the shared store (--store) is untrusted until
// unsealed: whoever can write to Redis can put any bytes there. unseal must
// refuse whatever it did not seal, a session record must decode or throw
// std::runtime_error (never crash, never allocate without bound), and what
// decodes must encode to bytes that decode to the same again. The --store
// address is parsed here too. The first byte picks the parser:
//   'A' the address, 'U' unseal (name and key fixed), anything else a record.
// PTC_FUZZ_WRITE_SEEDS=DIR writes real records into DIR and exits.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/mcp/session_record.hpp"
#include "protocol/store/sealed_record.hpp"
#include "protocol/store/store_address.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using ptc::HostValue;
constexpr std::string_view kKey = "fuzz-store-key-0123456789abcdef01";
constexpr std::string_view kName = "ptc:o:00:s:ptcs_AAAAAAAAAAAAAAAAAAAAAAAA";

std::vector<std::string> seeds() {
  ptc::mcp::StoredSession s;
  s.state.id = "ptcs_AAAAAAAAAAAAAAAAAAAAAAAA";
  s.state.owner = "token:0123";
  s.state.title = "t";
  s.state.mode = "read_only";
  s.state.ttl_ms = 60000;
  s.created_ms = 1700000000000;
  s.deadline_ms = s.created_ms + 60000;
  std::vector<std::string> out;
  out.push_back("S" + ptc::mcp::encode_session_record(s));
  s.state.memory = HostValue::map(
      {{HostValue::string("x"), HostValue::integer(1)},
       {HostValue::string("v"), HostValue::vector({HostValue::floating(1.5), HostValue::nil()})}});
  s.state.history = {HostValue::integer(1), HostValue::string("two")};
  s.state.prints.push_back({1, "hello"});
  s.state.notices = {"*1 is nil"};
  s.state.turn = 2;
  std::string record = ptc::mcp::encode_session_record(s);
  out.push_back("S" + record);
  out.push_back("U" + ptc::store::seal(kKey, kName, record));
  out.push_back("Aredis://:secret@127.0.0.1:6379/2");
  out.push_back("Aunix:///run/redis/redis.sock?db=1");
  out.push_back("Aredis://[::1]:7000");
  return out;
}

int write_seeds(const char* dir) {
  int n = 0;
  for (const std::string& s : seeds()) {
    std::string path = std::string(dir) + "/seed-" + std::to_string(n++);
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return 1;
    std::fwrite(s.data(), 1, s.size(), f);
    std::fclose(f);
  }
  std::fprintf(stderr, "wrote %d store seeds to %s\n", n, dir);
  return 0;
}

void address(std::string_view text) {
  ptc::store::StoreAddress a;
  if (!ptc::store::parse_store_address(text, a).empty()) return;
  // What describe() shows parses back to the same place (without the password).
  ptc::store::StoreAddress again;
  std::string shown = a.describe();
  PTC_FUZZ_CHECK(ptc::store::parse_store_address(shown, again).empty(), shown);
  PTC_FUZZ_CHECK(again.kind == a.kind && again.host == a.host && again.port == a.port &&
                     again.path == a.path && again.db == a.db,
                 shown);
}

void sealed(std::string_view bytes) {
  std::optional<std::string> payload = ptc::store::unseal(kKey, kName, bytes);
  if (!payload) return;
  // Only what seal made opens: sealing it again gives the same bytes.
  PTC_FUZZ_CHECK(ptc::store::seal(kKey, kName, *payload) == bytes, "unsealed foreign bytes");
  PTC_FUZZ_CHECK(!ptc::store::unseal(kKey, "another name", bytes), "a record opened elsewhere");
}

void record(std::string_view bytes) {
  ptc::mcp::StoredSession s;
  try {
    s = ptc::mcp::decode_session_record(bytes);
  } catch (const std::runtime_error&) {
    return;
  }
  std::string encoded = ptc::mcp::encode_session_record(s);
  ptc::mcp::StoredSession again = ptc::mcp::decode_session_record(encoded);
  PTC_FUZZ_CHECK(ptc::mcp::encode_session_record(again) == encoded, "unstable record");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("PTC_FUZZ_WRITE_SEEDS")) std::exit(write_seeds(dir));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in = ptc::fuzz::as_text(data, size);
  if (in.empty()) return 0;
  std::string_view rest = in.substr(1);
  switch (in[0]) {
    case 'A':
      address(rest);
      break;
    case 'U':
      sealed(rest);
      break;
    default:
      record(rest);
  }
  return 0;
}
