#include "protocol/store/redis.hpp"

#include <fmt/format.h>
#include <hiredis.h>
#include <openssl/sha.h>

#include <signal.h>

#include <algorithm>

namespace ptc::store {

namespace {

timeval to_timeval(std::chrono::milliseconds ms) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
  return tv;
}

RedisReply convert(const redisReply* r) {
  RedisReply out;
  switch (r->type) {
    case REDIS_REPLY_STRING:
      out.type = RedisReply::Type::String;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_STATUS:
      out.type = RedisReply::Type::Status;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ERROR:
      out.type = RedisReply::Type::Error;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_INTEGER:
      out.type = RedisReply::Type::Integer;
      out.integer = r->integer;
      break;
    case REDIS_REPLY_ARRAY:
      out.type = RedisReply::Type::Array;
      out.elements.reserve(r->elements);
      for (size_t i = 0; i < r->elements; ++i)
        out.elements.push_back(convert(r->element[i]));
      break;
    default:
      out.type = RedisReply::Type::Nil;
  }
  return out;
}

struct ReplyFree {
  void operator()(void* r) const { freeReplyObject(r); }
};
using ReplyPtr = std::unique_ptr<redisReply, ReplyFree>;

std::string sha1_hex(std::string_view text) {
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  std::string hex;
  for (unsigned char b : digest)
    hex += fmt::format("{:02x}", b);
  return hex;
}

}  // namespace

RedisScript::RedisScript(std::string text) : source(std::move(text)), sha1(sha1_hex(source)) {}

struct Redis::Connection {
  redisContext* context = nullptr;
  uint64_t generation = 0;
  ~Connection() {
    if (context) redisFree(context);
  }

  void append(const Args& args) {
    std::vector<const char*> argv;
    std::vector<size_t> lengths;
    for (const std::string& a : args) {
      argv.push_back(a.data());
      lengths.push_back(a.size());
    }
    redisAppendCommandArgv(context, static_cast<int>(argv.size()), argv.data(), lengths.data());
  }
  // nullptr when the connection failed (context->errstr says why).
  ReplyPtr read() {
    void* reply = nullptr;
    if (redisGetReply(context, &reply) != REDIS_OK) return nullptr;
    return ReplyPtr(static_cast<redisReply*>(reply));
  }
};

Redis::Redis(Options options) : options_(std::move(options)) {
  // hiredis writes to its socket with write(): a store that closed the
  // connection would kill the process with SIGPIPE. Ignore it (a host that
  // installed its own handler keeps it); the write then fails with EPIPE and
  // the store is reported down.
  struct sigaction current {};
  if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL)
    signal(SIGPIPE, SIG_IGN);
  std::string error;
  if (auto c = connect(error)) {
    up_ = true;
    idle_.push_back(std::move(c));
  } else if (options_.on_state) {
    options_.on_state(false, error);
  }
  reconnector_ = std::thread([this] { reconnect_loop(); });
}

Redis::~Redis() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  reconnector_.join();
}

std::unique_ptr<Redis::Connection> Redis::connect(std::string& error) const {
  const StoreAddress& a = options_.address;
  timeval tv = to_timeval(options_.connect_timeout);
  redisContext* ctx = a.kind == StoreAddress::Kind::Unix
                          ? redisConnectUnixWithTimeout(a.path.c_str(), tv)
                          : redisConnectWithTimeout(a.host.c_str(), a.port, tv);
  auto c = std::make_unique<Connection>();
  c->context = ctx;
  if (!ctx || ctx->err) {
    error = ctx ? ctx->errstr : "out of memory";
    return nullptr;
  }
  redisSetTimeout(ctx, to_timeval(options_.command_timeout));
  auto setup = [&](const Args& args) {
    c->append(args);
    ReplyPtr r = c->read();
    if (!r) {
      error = ctx->errstr;
      return false;
    }
    if (r->type == REDIS_REPLY_ERROR) {
      error = std::string(r->str, r->len);
      return false;
    }
    return true;
  };
  if (!a.password.empty() && !setup({"AUTH", a.password})) {
    error = "AUTH was refused: " + error;
    return nullptr;
  }
  if (a.db != 0 && !setup({"SELECT", std::to_string(a.db)})) return nullptr;
  if (!setup({"PING"})) return nullptr;
  return c;
}

std::unique_ptr<Redis::Connection> Redis::acquire() {
  {
    std::lock_guard lock(mutex_);
    if (!up_)
      throw StoreUnavailable(
          fmt::format("the shared store ({}) is unreachable", options_.address.describe()));
    while (!idle_.empty()) {
      std::unique_ptr<Connection> c = std::move(idle_.back());
      idle_.pop_back();
      if (c->generation == generation_) return c;
    }
  }
  // A new connection (the pool grows to the number of commands in flight at once).
  std::string error;
  std::unique_ptr<Connection> c = connect(error);
  if (!c) went_down(error);
  std::lock_guard lock(mutex_);
  c->generation = generation_;
  return c;
}

void Redis::give_back(std::unique_ptr<Connection> c) {
  std::lock_guard lock(mutex_);
  if (c->generation == generation_ && up_ && idle_.size() < 64) idle_.push_back(std::move(c));
}

void Redis::went_down(const std::string& detail) {
  bool changed = false;
  {
    std::lock_guard lock(mutex_);
    if (up_) {
      up_ = false;
      changed = true;
      ++generation_;
      idle_.clear();
    }
  }
  if (changed) {
    if (options_.on_state) options_.on_state(false, detail);
    wake_.notify_all();
  }
  throw StoreUnavailable(
      fmt::format("the shared store ({}) is unreachable: {}", options_.address.describe(), detail));
}

std::vector<RedisReply> Redis::pipeline(const std::vector<Args>& commands) {
  for (int attempt = 0;; ++attempt) {
    std::unique_ptr<Connection> c = acquire();
    for (const Args& args : commands)
      c->append(args);
    std::vector<RedisReply> replies;
    replies.reserve(commands.size());
    ReplyPtr r;
    for (size_t i = 0; i < commands.size() && (r = c->read()); ++i)
      replies.push_back(convert(r.get()));
    if (replies.size() == commands.size()) {
      give_back(std::move(c));
      return replies;
    }
    // A pooled connection the store closed (it restarted) ran nothing:
    // once more on a fresh one. A timeout is not retried (it may have run).
    if (attempt == 0 && replies.empty() && c->context->err == REDIS_ERR_EOF) {
      std::lock_guard lock(mutex_);
      idle_.clear();
      continue;
    }
    went_down(c->context->errstr);
  }
}

RedisReply Redis::command(const Args& args) {
  return std::move(pipeline({args}).front());
}

RedisReply Redis::eval(const RedisScript& script, const Args& keys, const Args& args) {
  Args call{"EVALSHA", script.sha1, std::to_string(keys.size())};
  call.insert(call.end(), keys.begin(), keys.end());
  call.insert(call.end(), args.begin(), args.end());
  RedisReply r = command(call);
  if (r.error() && r.str.rfind("NOSCRIPT", 0) == 0) {
    call[0] = "EVAL";
    call[1] = script.source;
    r = command(call);
  }
  return r;
}

bool Redis::up() const {
  std::lock_guard lock(mutex_);
  return up_;
}

bool Redis::ping() {
  try {
    RedisReply r = command({"PING"});
    return !r.error();
  } catch (const StoreUnavailable&) {
    return false;
  }
}

void Redis::reconnect_loop() {
  auto backoff = std::chrono::milliseconds(50);
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !up_; });
    if (stopping_) return;
    lock.unlock();
    std::string error;
    std::unique_ptr<Connection> c = connect(error);
    lock.lock();
    if (stopping_) return;
    if (c) {
      c->generation = generation_;
      idle_.push_back(std::move(c));
      up_ = true;
      backoff = std::chrono::milliseconds(50);
      lock.unlock();
      if (options_.on_state) options_.on_state(true, "");
      lock.lock();
      continue;
    }
    wake_.wait_for(lock, backoff, [this] { return stopping_; });
    backoff = std::min(backoff * 2, std::chrono::milliseconds(1000));
  }
}

}  // namespace ptc::store
