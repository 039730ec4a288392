// A connection to Redis shared by a replica's threads: a pool of hiredis
// connections (one per command in flight), every command bounded by a
// timeout. When a command cannot reach the store, the store is down: every
// command then fails at once with StoreUnavailable (no call waits on a dead
// store), and one background thread reconnects with backoff (50 ms doubling
// to 1 s) until a PING answers. Each change of state is reported once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "protocol/store/store_address.hpp"

namespace ptc::store {

// The store could not be reached, or did not answer in time: retryable.
class StoreUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RedisReply {
  enum class Type { Nil, Status, Error, Integer, String, Array } type = Type::Nil;
  int64_t integer = 0;
  std::string str;  // String, Status, Error
  std::vector<RedisReply> elements;

  bool nil() const { return type == Type::Nil; }
  bool error() const { return type == Type::Error; }
};

// A Lua script run with EVALSHA, loaded on first use (and again after the
// store restarts and forgets it).
struct RedisScript {
  explicit RedisScript(std::string source);
  std::string source;
  std::string sha1;  // hex
};

class Redis {
 public:
  struct Options {
    StoreAddress address;
    std::chrono::milliseconds connect_timeout{500};
    std::chrono::milliseconds command_timeout{500};
    // Called once per change of state, from the thread that saw it: up
    // (true) after a reconnect, down (false) with what went wrong.
    std::function<void(bool up, const std::string& detail)> on_state;
  };

  // Connects once; when that fails the store starts down and reconnects in
  // the background (a replica may start before its store).
  explicit Redis(Options options);
  ~Redis();
  Redis(const Redis&) = delete;
  Redis& operator=(const Redis&) = delete;

  using Args = std::vector<std::string>;
  // One command. Throws StoreUnavailable; a Redis error is an Error reply.
  RedisReply command(const Args& args);
  // Several commands sent at once, one reply each, in order.
  std::vector<RedisReply> pipeline(const std::vector<Args>& commands);
  // EVALSHA script keys... args...; loads it when the store lacks it.
  RedisReply eval(const RedisScript& script, const Args& keys, const Args& args);

  bool up() const;
  // Whether the store answers a PING now (readiness); never throws.
  bool ping();
  const StoreAddress& address() const { return options_.address; }

 private:
  struct Connection;
  std::unique_ptr<Connection> acquire();
  void give_back(std::unique_ptr<Connection> c);
  std::unique_ptr<Connection> connect(std::string& error) const;
  [[noreturn]] void went_down(const std::string& detail);
  void reconnect_loop();

  Options options_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<std::unique_ptr<Connection>> idle_;
  bool up_ = false;
  bool stopping_ = false;
  uint64_t generation_ = 0;  // bumped when the store goes down: older connections are dropped
  std::thread reconnector_;
};

}  // namespace ptc::store
