// ProgramCache: compiled programs by source and compile-shaping options,
// least recently used evicted first, bounded by entries and bytes.
#include <xxhash.h>

#include <list>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "vm/shared_inputs.hpp"

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
    if (auto found = s.index.find(key); found != s.index.end()) {
      s.lru.splice(s.lru.begin(), s.lru, found->second);
      ++s.hits;
      return found->second->second;
    }
    ++s.misses;
  }
  // Compiled outside the lock: other sources are served meanwhile. Two
  // threads missing on one source both compile; the first one stored wins.
  std::shared_ptr<const Program> program = compile(source, options);
  std::lock_guard lock(s.mutex);
  if (auto found = s.index.find(key); found != s.index.end()) return found->second->second;
  if (s.max_entries == 0) return program;
  s.bytes += footprint(*program, key.size());
  s.lru.emplace_front(std::move(key), program);
  s.index.emplace(s.lru.front().first, s.lru.begin());
  s.evict_to_fit();
  return program;
}

Step ProgramCache::run(std::string_view source, const RunOptions& options) {
  // Most programs run once (an LLM writes a new one each turn): compiling
  // them into the cache would cost a second arena and evict the ones that do
  // repeat. A source is kept from its second run on; its first runs as is.
  std::string key = cache_key(source, options);
  uint64_t hash = XXH3_64bits(key.data(), key.size());
  State& s = *state_;
  bool keep = false;
  {
    std::lock_guard lock(s.mutex);
    if (s.index.contains(key) || s.seen_once.erase(hash)) {
      keep = true;
    } else {
      if (s.seen_once.size() >= 4 * s.max_entries + 16) s.seen_once.clear();
      s.seen_once.insert(hash);
      ++s.misses;
    }
  }
  if (!keep) return ptc::run(source, options);
  std::shared_ptr<const Program> program;
  try {
    program = get(source, options);
  } catch (LispError&) {
    return ptc::run(source, options);  // the same error, as a Step with telemetry
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
