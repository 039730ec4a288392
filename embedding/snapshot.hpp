// The bytes of a suspended execution (Execution::dump, ptc::load): its inputs
// and its journal, in a versioned binary format. Bytes read back are
// untrusted (they come from storage): every field is checked, and anything
// wrong — not a snapshot, another format version, truncation, a length past
// the end, a bad UTF-8 string, an unknown tag, a malformed call id, a bad
// HMAC — is a snapshot_error saying what and at which byte, never a crash.
//
// Layout: "ptc-snap", format version (u16, little-endian), flags (u8: bit 0
// signed), then the body, then with bit 0 the HMAC-SHA256 of everything
// before it (32 bytes). Numbers in the body are LEB128 varints (signed ones
// zigzagged), floats 8 bytes little-endian, strings a varint length and
// bytes, values a tag byte and their parts.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "embedding/journal.hpp"
#include "include/ptc/ptc.hpp"
#include "runtime/value.hpp"

namespace ptc {

class Ctx;

// A tool the program was compiled against.
struct SnapshotTool {
  std::string name;
  bool cacheable = false;
  bool deferred = false;
  bool needs_approval = false;
};

// What an execution started from: everything of its RunOptions that decides
// what the program computes.
struct SnapshotInputs {
  std::string engine;  // the engine that wrote it (not part of encode_inputs)
  std::string source;
  // The run compiled its source itself (ptc::start(source)): its heap then
  // holds the compiled program too, which a replay must match.
  bool compiled_in_run = true;
  // The context: JSON text when the run was given text, else a value.
  bool context_is_json = false;
  std::string context_json;
  HostValue context;
  HostValue memory;
  std::vector<HostValue> turn_history;
  std::string signature;
  std::optional<int> float_precision;
  bool filter_context = true;
  HostValue budget;
  std::vector<SnapshotTool> tools;
  std::vector<std::string> deferred_tools;
  Limits limits;  // what it ran with (not part of encode_inputs: each dump writes its own)
};

struct Snapshot {
  SnapshotInputs inputs;
  std::string inputs_bytes;  // the inputs as the snapshot wrote them
  Journal journal;
  std::vector<std::string> pending;    // ids of the calls it waited on, in order
  std::vector<std::string> approvals;  // of those, the ones waiting for a decision
};

// 2: tools that need approval, and pending calls that wait for a decision.
constexpr uint16_t kSnapshotFormat = 2;

// The inputs' part of a snapshot, all but the engine and the limits (they
// never change: an execution writes them once).
std::string encode_inputs(const SnapshotInputs& inputs);
// With a non-empty key, the bytes are signed.
std::string encode_snapshot(std::string_view engine, std::string_view inputs, const Limits& limits,
                            const Journal& journal, const std::vector<std::string>& pending,
                            const std::vector<std::string>& approvals, std::string_view key);
// Throws LispError(snapshot_error). With a key, the bytes must be signed with
// it; without one, they must not be signed.
Snapshot decode_snapshot(std::string_view bytes, std::string_view key);

// One value in the snapshot's encoding, and back (a snapshot_error for bytes
// that are not one); import_encoded builds it in a run's arena straight from
// bytes read from a snapshot, as import_value would from the host value.
std::string encode_value(const HostValue& v);
HostValue decode_value(std::string_view bytes);
Value import_encoded(Ctx& ctx, std::string_view bytes);
// Whether `bytes` (checked when the snapshot was read) are the encoding of
// the host value export_value(v) makes with string keys, maps in the order
// they iterate. True proves the two equal; false proves nothing (sets, big
// integers and deep values are not compared here): a replay then compares
// canonical keys.
bool encoded_export_matches(std::string_view bytes, Value v);

// The engine's name in snapshots: "ptc 0.1.0 (git <revision>)".
std::string snapshot_engine();

}  // namespace ptc
