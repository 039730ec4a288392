#include "protocol/mcp/session_record.hpp"

#include <stdexcept>

#include "protocol/store/sealed_record.hpp"

namespace ptc::mcp {

namespace {
constexpr uint64_t kRecordFormat = 1;
// A record holds at most this many items of a list: far above what a
// session keeps (3 results, 50 prints), far below what would exhaust memory.
constexpr uint64_t kMaxListItems = 1 << 16;

uint64_t list_size(store::RecordReader& r) {
  uint64_t n = r.u64();
  if (n > kMaxListItems) throw std::runtime_error("a list in the record is too long");
  return n;
}
}  // namespace

std::string encode_session_record(const StoredSession& s) {
  store::RecordWriter w;
  const SessionState& st = s.state;
  w.u64(kRecordFormat).str(st.id).str(st.owner).str(st.title).str(st.mode).u64(st.ttl_ms);
  w.i64(s.created_ms).i64(s.deadline_ms).u64(st.turn).value(st.memory).u64(st.memory_bytes);
  w.u64(st.history.size());
  for (const HostValue& h : st.history)
    w.value(h);
  w.u64(st.prints.size());
  for (const SessionPrint& p : st.prints)
    w.u64(p.turn).str(p.text);
  w.u64(st.print_bytes).u64(st.prints_dropped ? 1 : 0);
  w.u64(st.notices.size());
  for (const std::string& n : st.notices)
    w.str(n);
  return w.take();
}

StoredSession decode_session_record(std::string_view bytes) {
  store::RecordReader r(bytes);
  StoredSession s;
  SessionState& st = s.state;
  if (r.u64() != kRecordFormat) throw std::runtime_error("another record format");
  st.id = r.str();
  st.owner = r.str();
  st.title = r.str();
  st.mode = r.str();
  st.ttl_ms = r.u64();
  s.created_ms = r.i64();
  s.deadline_ms = r.i64();
  st.turn = r.u64();
  st.memory = r.value();
  if (st.memory.kind() != HostValue::Kind::Map) throw std::runtime_error("the memory is not a map");
  st.memory_bytes = r.u64();
  for (uint64_t n = list_size(r); n > 0; --n)
    st.history.push_back(r.value());
  for (uint64_t n = list_size(r); n > 0; --n) {
    uint64_t turn = r.u64();
    st.prints.push_back({turn, r.str()});
  }
  st.print_bytes = r.u64();
  st.prints_dropped = r.u64() != 0;
  for (uint64_t n = list_size(r); n > 0; --n)
    st.notices.push_back(r.str());
  if (!r.done()) throw std::runtime_error("bytes after the record's end");
  return s;
}

}  // namespace ptc::mcp
