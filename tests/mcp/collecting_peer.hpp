// A Peer for tests of Server::handle: it keeps every frame the server sends
// (parsed) and lets a test wait for the reply to an id.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "protocol/mcp/server.hpp"

namespace ptc::mcp::testing {

class CollectingPeer final : public Peer {
 public:
  void send(std::string frame) override {
    std::lock_guard lock(mutex_);
    frames_.push_back(parse_json(frame));
    changed_.notify_all();
  }
  // The frame answering `id` (waits up to `timeout`); nil when none came.
  HostValue reply(int64_t id, std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    std::unique_lock lock(mutex_);
    HostValue out;
    changed_.wait_for(lock, timeout, [&] {
      for (const HostValue& f : frames_)
        if (const HostValue* i = f.get("id");
            i && i->kind() == HostValue::Kind::Int && i->as_int() == id) {
          out = f;
          return true;
        }
      return false;
    });
    return out;
  }
  std::vector<HostValue> frames() {
    std::lock_guard lock(mutex_);
    return frames_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<HostValue> frames_;
};

}  // namespace ptc::mcp::testing
