// Snapshot bytes from storage are untrusted: ptc::load (and inspect_snapshot)
// must refuse anything that is not a snapshot it wrote with a snapshot_error
// (or a snapshot_divergence when a well-formed snapshot does not replay),
// never crash, leak or run past the host's limits. A snapshot that loads is a
// working execution: its pending calls are the ones inspect_snapshot lists,
// it dumps to bytes that load again to the same calls, and it runs on when
// they are answered.
//
// The seeds are snapshots of real executions. PTC_FUZZ_WRITE_SEEDS=DIR makes
// the target write them into DIR and exit (scripts/fuzz reseed snapshot).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "include/ptc/ptc.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using ptc::HostValue;

// Inputs that start with this byte are loaded with a key: the HMAC path.
constexpr char kSignedMarker = 'K';
constexpr std::string_view kKey = "fuzz-key";

const ptc::RunOptions& host_options() {
  static const ptc::RunOptions* options = [] {
    auto* o = new ptc::RunOptions;
    o->limits = ptc::fuzz::tight_limits();
    o->tools["echo"] = {[](const HostValue& args) { return ptc::ToolResult::success(args); }};
    // A tool whose calls wait for a person's decision first.
    o->tools["pay"] = {[](const HostValue& args) { return ptc::ToolResult::success(args); }};
    o->tools["pay"].needs_approval = true;
    return o;
  }();
  return *options;
}

// An answer of the kind the call waits for: a decision for an approval
// (some approved, some rejected), else a result or a failure.
ptc::Answer answer(const ptc::PendingCall& call) {
  if (call.kind == ptc::PendingCall::Kind::Approval)
    return call.id.size() % 2 == 0 ? ptc::Decision::approve() : ptc::Decision::reject("no");
  if (call.tool.size() % 3 == 0) return ptc::ToolResult::failure("no");
  return ptc::ToolResult::success(
      HostValue::map({{HostValue::string("tool"), HostValue::string(call.tool)},
                      {HostValue::string("args"), call.args},
                      {HostValue::string("n"), HostValue::integer(7)}}));
}

std::vector<std::string> ids_of(const ptc::Execution& e) {
  std::vector<std::string> ids;
  for (const ptc::PendingCall& c : e.pending())
    ids.push_back(c.id);
  return ids;
}

void exercise(std::string_view bytes, std::string_view key) {
  ptc::SnapshotInfo info;
  bool inspected = false;
  try {
    info = ptc::inspect_snapshot(bytes, key);
    inspected = true;
  } catch (ptc::LispError& e) {
    PTC_FUZZ_CHECK(e.error().kind == ptc::ErrorKind::SnapshotError, ptc::format_error(e.error()));
  }
  ptc::Execution loaded = [&]() -> ptc::Execution {
    try {
      return ptc::load(bytes, host_options(), key);
    } catch (ptc::LispError& e) {
      auto k = e.error().kind;
      PTC_FUZZ_CHECK(k == ptc::ErrorKind::SnapshotError || k == ptc::ErrorKind::SnapshotDivergence,
                     ptc::format_error(e.error()));
      // What inspect refuses, load refuses as it does.
      PTC_FUZZ_CHECK(inspected || k == ptc::ErrorKind::SnapshotError, ptc::format_error(e.error()));
      throw;
    }
  }();
  PTC_FUZZ_CHECK(inspected, "load accepted what inspect_snapshot refused");
  ptc::fuzz::debug("loaded", loaded.done() ? "done" : "suspended");
  if (loaded.done()) return;  // a limit reached while replaying
  std::vector<std::string> pending = ids_of(loaded);
  std::vector<std::string> listed = info.pending;
  std::sort(pending.begin(), pending.end());
  std::sort(listed.begin(), listed.end());
  PTC_FUZZ_CHECK(pending == listed, "the loaded execution waits on other calls than listed");
  // Its bytes load again, to the same calls.
  std::string again = loaded.dump(key);
  ptc::Execution reloaded = ptc::load(again, host_options(), key);
  PTC_FUZZ_CHECK(!reloaded.done() && ids_of(reloaded) == ids_of(loaded),
                 "a dump of a loaded execution did not load to the same calls");
  // It runs on.
  for (int round = 0; round < 8 && !loaded.done(); ++round) {
    ptc::Answers answers;
    for (const ptc::PendingCall& c : loaded.pending())
      answers.emplace(c.id, answer(c));
    loaded.resume(std::move(answers));
  }
  if (!loaded.done()) loaded.cancel();
  PTC_FUZZ_CHECK(loaded.done(), "a cancelled execution is not done");
}

// Snapshots of real executions, for the seeds.
std::vector<std::string> seed_snapshots() {
  const char* programs[] = {
      "(tool/get {:id 1})",
      "(def u (tool/get {:id 7})) (println (:n u)) [(tool/get {:id 8 :prev (:n u)}) u]",
      "(pmap #(tool/get {:i %}) (range 3))",
      "(pmap (fn [x] (pmap #(tool/get {:x x :y %}) [1 2])) [1 2])",
      "(let [t (System/currentTimeMillis)] [(tool/get {}) t (tool/echo {:k [1 2.5 \"s\" nil]})])",
      "(defn f [x] (tool/get {:x x})) (mapv f (range 4))",
      "(pcalls #(tool/get {:a 1}) #(tool/echo {:b 2}) #(tool/get {:c #{1 2}}))",
      "(reduce (fn [a i] (+ a (:n (tool/get {:i i})))) 0 (range 5))",
      "[(tool/pay {:amount 5}) (tool/get {:after 1})]",
      "(pmap #(tool/pay {:to %}) [\"a\" \"bc\"])",
  };
  std::vector<std::string> out;
  for (const char* p : programs) {
    ptc::RunOptions o = host_options();
    o.deferred_tools = {"get"};
    o.context =
        ptc::parse_json(R"({"xs": [1, 2, 3], "name": "ünïcode", "big": 12345678901234567890123})");
    o.memory = HostValue::map({{HostValue::string("m"), HostValue::integer(1)}});
    ptc::Execution e = ptc::start(p, o);
    for (int step = 0; step < 4 && !e.done(); ++step) {
      out.push_back(e.dump());
      if (step == 0) out.push_back(std::string(1, kSignedMarker) + e.dump(kKey));
      std::vector<ptc::PendingCall> calls = e.pending();
      e.resume({{calls.front().id, answer(calls.front())}});
    }
  }
  return out;
}

int write_seeds(const char* dir) {
  int n = 0;
  for (const std::string& s : seed_snapshots()) {
    std::string path = std::string(dir) + "/seed-" + std::to_string(n++);
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return 1;
    std::fwrite(s.data(), 1, s.size(), f);
    std::fclose(f);
  }
  std::fprintf(stderr, "wrote %d snapshot seeds to %s\n", n, dir);
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("PTC_FUZZ_WRITE_SEEDS")) std::exit(write_seeds(dir));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes = ptc::fuzz::as_text(data, size);
  std::string_view key;
  if (!bytes.empty() && bytes[0] == kSignedMarker) {
    bytes.remove_prefix(1);
    key = kKey;
  }
  try {
    exercise(bytes, key);
  } catch (ptc::LispError&) {
    // Refused (checked above).
  }
  return 0;
}
