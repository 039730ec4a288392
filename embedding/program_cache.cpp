// ProgramCache: compiled programs by source and compile-shaping options,
// least recently used evicted first, bounded by entries and bytes.
#include <xxhash.h>

#include <list>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "embedding/shared_inputs.hpp"

namespace ptc {

namespace {

// Everything compile() reads from the options, written out whole (no hash:
// a crafted collision must not hand one source another's program).
std::string cache_key(std::string_view source, const RunOptions& options) {
  std::string key;
  const Limits& l = options.limits;
  key += std::to_string(l.max_symbols) + ',' + std::to_string(l.max_program_bytes) + ',' +
         std::to_string(l.max_nesting_depth) + ',' + std::to_string(l.compile_timeout_ms);
  auto names = [&key](char tag, auto begin, auto end) {
    key += tag;
    for (auto it = begin; it != end; ++it) {
      key += std::to_string(it->size()) + ':';
      key += *it;
    }
  };
  std::vector<std::string_view> memory_names;
  if (options.memory.kind() == HostValue::Kind::Map) {
    const auto& items = options.memory.items();
    for (size_t i = 0; i + 1 < items.size(); i += 2)
      memory_names.push_back(items[i].text());
  }
  names('m', memory_names.begin(), memory_names.end());
  std::vector<std::string_view> tool_names;
  for (const auto& [name, _] : options.tools)
    tool_names.push_back(name);
  names('t', tool_names.begin(), tool_names.end());
  key += 's';
  key += source;
  return key;
}

size_t footprint(const Program& p, size_t key_bytes) {
  return p.ctx.arena.used() + p.source.size() + key_bytes;
}

}  // namespace

struct ProgramCache::State {
  size_t max_entries, max_bytes;
  mutable std::mutex mutex;
  using Entry = std::pair<std::string, std::shared_ptr<const Program>>;
  std::list<Entry> lru;  // most recently used first
  std::unordered_map<std::string_view, std::list<Entry>::iterator> index;  // views into lru keys
  size_t bytes = 0;
  uint64_t hits = 0, misses = 0;
  // Hashes of the keys run() met once and did not keep (admission on the
  // second use). A collision only admits a source early.
  std::unordered_set<uint64_t> seen_once;

  // The program kept under `key`, now the most recently used; nullptr when
  // none. With the lock held.
  std::shared_ptr<const Program> find(const std::string& key) {
    auto found = index.find(key);
    if (found == index.end()) return nullptr;
    lru.splice(lru.begin(), lru, found->second);
    ++hits;
    return found->second->second;
  }

  // Compiles outside the lock (other sources are served meanwhile) and keeps
  // the program; when two threads compiled one source, the first kept wins.
  std::shared_ptr<const Program> compile_and_keep(std::string key, std::string_view source,
                                                  const RunOptions& options) {
    std::shared_ptr<const Program> program = compile(source, options);
    std::lock_guard lock(mutex);
    if (auto found = index.find(key); found != index.end()) return found->second->second;
    if (max_entries == 0) return program;
    bytes += footprint(*program, key.size());
    lru.emplace_front(std::move(key), program);
    index.emplace(lru.front().first, lru.begin());
    evict_to_fit();
    return program;
  }

  void evict_to_fit() {
    while (!lru.empty() && (lru.size() > max_entries || bytes > max_bytes)) {
      bytes -= footprint(*lru.back().second, lru.back().first.size());
      index.erase(lru.back().first);
      lru.pop_back();
    }
  }
};

ProgramCache::ProgramCache(size_t max_entries, size_t max_bytes)
    : state_(std::make_unique<State>()) {
  state_->max_entries = max_entries;
  state_->max_bytes = max_bytes;
}

ProgramCache::~ProgramCache() = default;

std::shared_ptr<const Program> ProgramCache::get(std::string_view source,
                                                 const RunOptions& options) {
  std::string key = cache_key(source, options);
  State& s = *state_;
  {
    std::lock_guard lock(s.mutex);
    if (auto program = s.find(key)) return program;
    ++s.misses;
  }
  return s.compile_and_keep(std::move(key), source, options);
}

Step ProgramCache::run(std::string_view source, const RunOptions& options) {
  // Most programs run once (an LLM writes a new one each turn): compiling
  // them into the cache would cost a second arena and evict the ones that do
  // repeat. A source is kept from its second run on; its first runs as is.
  std::string key = cache_key(source, options);
  State& s = *state_;
  std::shared_ptr<const Program> program;
  bool second_run = false;
  {
    std::lock_guard lock(s.mutex);
    program = s.find(key);
    if (!program) {
      ++s.misses;
      uint64_t hash = XXH3_64bits(key.data(), key.size());
      second_run = s.seen_once.erase(hash) > 0;
      if (!second_run) {
        if (s.seen_once.size() >= 4 * s.max_entries + 16) s.seen_once.clear();
        s.seen_once.insert(hash);
      }
    }
  }
  if (!program && !second_run) return ptc::run(source, options);
  if (!program) {
    try {
      program = s.compile_and_keep(std::move(key), source, options);
    } catch (LispError&) {
      return ptc::run(source, options);  // the same error, as a Step with telemetry
    }
  }
  return ptc::run(*program, options);
}

size_t ProgramCache::size() const {
  std::lock_guard lock(state_->mutex);
  return state_->lru.size();
}

uint64_t ProgramCache::hits() const {
  std::lock_guard lock(state_->mutex);
  return state_->hits;
}

uint64_t ProgramCache::misses() const {
  std::lock_guard lock(state_->mutex);
  return state_->misses;
}

}  // namespace ptc
