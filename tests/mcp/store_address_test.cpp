// --store addresses and the shared store's records, without a store.
#include <gtest/gtest.h>

#include <stdexcept>

#include "protocol/mcp/session_record.hpp"
#include "protocol/store/sealed_record.hpp"
#include "protocol/store/store_address.hpp"

namespace ptc::store {
namespace {

StoreAddress parsed(std::string_view url) {
  StoreAddress a;
  std::string error = parse_store_address(url, a);
  EXPECT_EQ(error, "") << url;
  return a;
}

std::string refused(std::string_view url) {
  StoreAddress a;
  return parse_store_address(url, a);
}

TEST(StoreAddress, TcpUnixPasswordAndDatabase) {
  StoreAddress a = parsed("redis://127.0.0.1:6380/2");
  EXPECT_EQ(a.kind, StoreAddress::Kind::Tcp);
  EXPECT_EQ(a.host, "127.0.0.1");
  EXPECT_EQ(a.port, 6380);
  EXPECT_EQ(a.db, 2u);
  EXPECT_EQ(parsed("redis://localhost").port, 6379);
  StoreAddress p = parsed("redis://default:s%40cret@[::1]:7000");
  EXPECT_EQ(p.host, "::1");
  EXPECT_EQ(p.password, "s@cret");
  EXPECT_EQ(p.describe(), "redis://[::1]:7000/0") << "the password is never shown";
  StoreAddress u = parsed("unix:///run/redis/redis.sock?db=3");
  EXPECT_EQ(u.kind, StoreAddress::Kind::Unix);
  EXPECT_EQ(u.path, "/run/redis/redis.sock");
  EXPECT_EQ(u.db, 3u);
}

TEST(StoreAddress, BadOnesSayWhatIsWrong) {
  EXPECT_NE(refused("http://127.0.0.1").find("is not a store address"), std::string::npos);
  EXPECT_NE(refused("redis://127.0.0.1:0").find("port"), std::string::npos);
  EXPECT_NE(refused("redis://127.0.0.1:99999").find("port"), std::string::npos);
  EXPECT_NE(refused("redis://127.0.0.1/x").find("database"), std::string::npos);
  EXPECT_NE(refused("redis://:6379").find("no host"), std::string::npos);
  EXPECT_NE(refused("redis://a:b:1").find("IPv6"), std::string::npos);
  EXPECT_NE(refused("unix://relative.sock").find("absolute"), std::string::npos);
  EXPECT_NE(refused("unix:///x.sock?timeout=1").find("unknown query"), std::string::npos);
  EXPECT_NE(refused("redis://:%zz@h").find("%-escape"), std::string::npos);
}

TEST(SealedRecord, OpensOnlyUnderItsKeyAndName) {
  std::string key(32, 'k');
  std::string s = seal(key, "ptc:a", "payload");
  EXPECT_EQ(unseal(key, "ptc:a", s), "payload");
  EXPECT_FALSE(unseal(key, "ptc:b", s)) << "moved to another key name";
  EXPECT_FALSE(unseal(std::string(32, 'j'), "ptc:a", s)) << "another key";
  std::string altered = s;
  altered.back() ^= 1;
  EXPECT_FALSE(unseal(key, "ptc:a", altered));
  EXPECT_FALSE(unseal(key, "ptc:a", s.substr(0, 10)));
  EXPECT_NE(owner_namespace(key, "alice"), owner_namespace(key, "bob"));
  EXPECT_NE(owner_namespace(key, "alice"), owner_namespace(std::string(32, 'j'), "alice"));
  EXPECT_EQ(owner_namespace(key, "alice").size(), 32u);
}

TEST(SessionRecord, RoundTripsAndRefusesWhatIsNotOne) {
  mcp::StoredSession s;
  s.state.id = "ptcs_x";
  s.state.owner = "alice";
  s.state.ttl_ms = 5;
  s.state.turn = 2;
  s.state.memory = HostValue::map({{HostValue::string("x"), HostValue::integer(-7)}});
  s.state.history = {HostValue::integer(1), HostValue::nil()};
  s.state.prints.push_back({2, "hi"});
  s.state.prints_dropped = true;
  s.state.notices = {"n"};
  s.created_ms = -1;
  s.deadline_ms = 1700000000000;
  std::string bytes = mcp::encode_session_record(s);
  mcp::StoredSession back = mcp::decode_session_record(bytes);
  EXPECT_EQ(mcp::encode_session_record(back), bytes);
  EXPECT_EQ(back.state.memory.get("x")->as_int(), -7);
  EXPECT_EQ(back.created_ms, -1);
  EXPECT_EQ(back.state.prints.front().text, "hi");
  EXPECT_THROW(mcp::decode_session_record(bytes.substr(0, bytes.size() - 1)), std::runtime_error);
  EXPECT_THROW(mcp::decode_session_record(bytes + "x"), std::runtime_error);
  EXPECT_THROW(mcp::decode_session_record(""), std::runtime_error);
  EXPECT_THROW(mcp::decode_session_record("\x02"), std::runtime_error);
}

}  // namespace
}  // namespace ptc::store
