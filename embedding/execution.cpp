#include "embedding/execution.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <new>
#include <unordered_map>

#include "embedding/shared_inputs.hpp"
#include "embedding/snapshot.hpp"
#include "embedding/tool_broker.hpp"
#include "runtime/error.hpp"
#include "runtime/host_value.hpp"
#include "scheduler/parallel.hpp"

namespace ptc {

namespace {

std::string id_list(const std::vector<std::string>& ids) {
  std::string out;
  for (const std::string& id : ids) {
    if (out.size() > 200) return out + ", ...";
    out += (out.empty() ? "" : ", ") + id;
  }
  return out.empty() ? "none" : out;
}

bool is_resource_error(ErrorKind kind) {
  return kind == ErrorKind::Timeout || kind == ErrorKind::Cancelled ||
         kind == ErrorKind::MemoryLimit;
}

}  // namespace

ExecutionState::ExecutionState(std::string source, std::shared_ptr<const Program> program,
                               RunOptions options)
    : source_(std::move(source)),
      program_(std::move(program)),
      options_(std::move(options)),
      engine_(snapshot_engine()),
      recorded_by_(engine_) {
  if (!options_.context_json.empty()) {
    context_text_ = std::string(options_.context_json);
    options_.context_json = context_text_;
  }
  // The default window depends on the machine; an execution keeps the one it
  // started with (a snapshot carries it), so that its replay elsewhere starts
  // the same branches.
  if (options_.limits.pmap_max_concurrency == 0)
    options_.limits.pmap_max_concurrency = default_pmap_window();
}

ExecutionState::~ExecutionState() {
  if (fiber_ && !done_) {
    try {
      stop(Stopping::Drop);
    } catch (...) {}
    // A fiber that would not end keeps its frames: let it go rather than
    // reuse a stack that is still in use.
    if (!done_) (void)fiber_.release();
  }
}

// ---------------------------------------------------------------- running

void ExecutionState::run_until_waiting() {
  if (!fiber_) {
    try {
      fiber_ = std::make_unique<Fiber>([this] {
        std::string_view source = program_ ? program_source(*program_) : source_;
        try {
          step_ = run_step(source, program_.get(), options_, this);
        } catch (const Dropped&) {
          // Unwound for the destructor: nobody reads the outcome.
        }
      });
    } catch (const std::bad_alloc&) {
      throw_error(ErrorKind::MemoryLimit, "no memory for the execution's stack",
                  "run fewer executions at once");
    }
  }
  do {
    try {
      fiber_->resume();
    } catch (...) {
      // run_step reports every failure in its Step; nothing is expected here.
      step_ = Step();
      step_.error = Error{
          ErrorKind::RuntimeError, "internal error: the execution's fiber failed", "", {}, ""};
      step_.memory = options_.memory;
    }
  } while (!fiber_->finished() && withdraw_stopped_waits());
  if (fiber_->finished()) {
    done_ = true;
    fiber_.reset();
    contexts_.clear();
    pending_.clear();
    return;
  }
  suspended_at_ = Clock::now();
}

bool ExecutionState::withdraw_stopped_waits() {
  bool any = false;
  for (size_t i = 0; i < pending_.size();) {
    Pending* p = pending_[i];
    if (!p->ctx->cancel_requested()) {
      ++i;
      continue;
    }
    p->listed = false;
    pending_.erase(pending_.begin() + static_cast<ptrdiff_t>(i));
    p->cancelled = true;
    p->wait.answer();
    any = true;
  }
  return any;
}

void ExecutionState::count_pause() {
  auto paused = Clock::now() - suspended_at_;
  paused_ns_.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(paused).count(),
                       std::memory_order_relaxed);
}

std::vector<PendingCall> ExecutionState::pending() const {
  std::vector<PendingCall> out;
  out.reserve(pending_.size());
  for (const Pending* p : pending_)
    out.push_back(p->call);
  return out;
}

std::vector<std::string> ExecutionState::pending_ids() const {
  std::vector<std::string> ids;
  ids.reserve(pending_.size());
  for (const Pending* p : pending_)
    ids.push_back(p->call.id);
  return ids;
}

std::vector<std::string> ExecutionState::approval_ids() const {
  std::vector<std::string> ids;
  for (const Pending* p : pending_)
    if (p->call.kind == PendingCall::Kind::Approval) ids.push_back(p->call.id);
  return ids;
}

void ExecutionState::resume(Answers answers) {
  if (done_)
    throw_error(ErrorKind::ArgsError, "the execution is done: there is nothing to resume",
                "read its outcome with step()");
  if (answers.empty())
    throw_error(ErrorKind::ArgsError, "resume() needs at least one answer",
                fmt::format("answer some of the pending calls: {}", id_list(pending_ids())));
  // Every id is checked before anything changes. Few calls are pending at a
  // time but for a wide pmap: an index only then.
  std::unordered_map<std::string_view, Pending*> index;
  if (pending_.size() > 16)
    for (Pending* p : pending_)
      index.emplace(p->call.id, p);
  auto find = [&](std::string_view id) -> Pending* {
    if (!index.empty()) {
      auto it = index.find(id);
      return it == index.end() ? nullptr : it->second;
    }
    for (Pending* p : pending_)
      if (p->call.id == id) return p;
    return nullptr;
  };
  std::vector<std::pair<Pending*, Answer*>> answered;
  answered.reserve(answers.size());
  for (auto& [id, answer] : answers) {
    if (Pending* p = find(id)) {
      bool approval = p->call.kind == PendingCall::Kind::Approval;
      if (approval && !answer.is_decision)
        throw_error(
            ErrorKind::ArgsError,
            fmt::format("call {} to tool/{} waits for a person's approval, not for a result", id,
                        p->call.tool),
            "answer it with a decision: approve, or reject with a reason");
      if (!approval && answer.is_decision)
        throw_error(
            ErrorKind::ArgsError,
            fmt::format("call {} to tool/{} waits for the tool's result, not for a decision", id,
                        p->call.tool),
            "answer it with the tool's result or its failure");
      answered.emplace_back(p, &answer);
      continue;
    }
    auto place = parse_call_id(id);
    const BranchJournal* branch = place ? journal_.find(place->first) : nullptr;
    if (branch && place->second < branch->tools.size())
      throw_error(ErrorKind::ArgsError, fmt::format("call {} was answered before", id),
                  fmt::format("answer only the pending calls: {}", id_list(pending_ids())));
    throw_error(ErrorKind::ArgsError, fmt::format("no pending call has the id \"{}\"", id),
                fmt::format("answer only the pending calls: {}", id_list(pending_ids())));
  }
  count_pause();
  for (auto& [p, answer] : answered) {
    p->listed = false;
    if (answer->is_decision)
      p->decision = std::move(answer->decision);
    else
      p->answer = std::move(answer->result);
    p->wait.answer();
  }
  std::erase_if(pending_, [](const Pending* p) { return !p->listed; });
  run_until_waiting();
}

void ExecutionState::cancel() {
  stop(Stopping::Cancel);
}

void ExecutionState::stop(Stopping how) {
  if (done_ || !fiber_) return;
  stopping_ = how;
  count_pause();
  // Every live part of the run waits on a call: each is told it was cancelled
  // and unwinds; a part that waits again is told at once (await_answer).
  for (Pending* p : pending_) {
    p->listed = false;
    p->cancelled = true;
    p->wait.answer();
  }
  pending_.clear();
  for (int round = 0; !done_ && round < 64; ++round) {
    run_until_waiting();
    if (!done_) count_pause();
  }
}

size_t ExecutionState::heap_bytes() const {
  size_t bytes = journal_.bytes();
  for (const Ctx* c : contexts_)
    bytes += c->arena.used();
  return bytes;
}

// ---------------------------------------------------------------- the run's side

void ExecutionState::attach(Ctx& run) {
  run.world = this;
  run.count_pauses_in(&paused_ns_);
  contexts_.push_back(&run);
}

AnswerSource ExecutionState::source_of(const Ctx& ctx, uint32_t number, std::string_view tool,
                                       Value args) {
  const BranchJournal* branch = journal_.find(ctx.place.path);
  if (branch && number < branch->tools.size()) {
    const JournalCall& t = branch->tools[number];
    if (t.tool != tool)
      diverge(fmt::format("call {} is to tool/{}, where the journal holds a call to tool/{}",
                          call_id(ctx.place.path, number), tool, t.tool));
    // Most replayed calls are recognised by the bytes of their arguments;
    // the canonical key is the general test.
    bool same =
        !t.args_truncated && !args.is_nil() && encoded_export_matches(t.ledger_args.bytes(), args);
    if (!same && t.args_key.view() != canonical_args_key(args).view())
      diverge(fmt::format("call {} to tool/{} has other arguments than the journal's",
                          call_id(ctx.place.path, number), tool));
    return AnswerSource::Journal;
  }
  if (!replaying_) return AnswerSource::Live;
  std::string id = call_id(ctx.place.path, number);
  if (pending_at_dump_.count(id))
    return approvals_at_dump_.count(id) ? AnswerSource::HostApproval : AnswerSource::Host;
  diverge(fmt::format("the program makes call {} (to tool/{}), which the journal does not hold", id,
                      tool));
}

const JournalCall& ExecutionState::recorded(const Ctx& ctx, uint32_t number) {
  ++replayed_tools_;
  return journal_.find(ctx.place.path)->tools[number];
}

void ExecutionState::stopped(Ctx& ctx) const {
  // Dropped: the frames only unwind, past every handler of program errors.
  if (stopping_ == Stopping::Drop) throw Dropped{};
  // Stopped from outside (the host, or a failing sibling branch): the cause
  // is reported elsewhere.
  ctx.mark_cancelled();
  throw_error(ErrorKind::Cancelled, "execution was cancelled");
}

ToolResult ExecutionState::await_answer(Ctx& ctx, uint32_t number, std::string_view tool,
                                        const HostValue& args) {
  Pending p;
  if (!park(ctx, p, PendingCall::Kind::Call, number, tool, args))
    return ToolResult::failure("the execution was dropped");
  return std::move(p.answer);
}

Decision ExecutionState::await_decision(Ctx& ctx, uint32_t number, std::string_view tool,
                                        const HostValue& args) {
  Pending p;
  if (!park(ctx, p, PendingCall::Kind::Approval, number, tool, args))
    return Decision::reject("the execution was dropped");
  return std::move(p.decision);
}

bool ExecutionState::park(Ctx& ctx, Pending& p, PendingCall::Kind kind, uint32_t number,
                          std::string_view tool, const HostValue& args) {
  if (stopping_ != Stopping::None) stopped(ctx);
  p.call = PendingCall{call_id(ctx.place.path, number), std::string(tool), args, kind,
                       ctx.tool_call_loc};
  // A part of the run that parks keeps only what is live: the VM is at its
  // tool call, and every value the frames between hold is rooted.
  ctx.collect_while_parked();
  p.ctx = &ctx;
  // Kept in program order: branches on other threads reach their waits in any order.
  auto at = std::upper_bound(
      pending_.begin(), pending_.end(), &p,
      [](const Pending* x, const Pending* y) { return call_id_before(x->call.id, y->call.id); });
  pending_.insert(at, &p);
  struct Unlist {  // a wait that ends without the host (unwinding) leaves no stale entry
    ExecutionState& self;
    Pending& p;
    ~Unlist() {
      if (p.listed) std::erase(self.pending_, &p);
    }
  } unlist{*this, p};
  p.wait.wait();
  if (p.cancelled) {
    // A drop where only the VM loop stands between this wait and the run
    // returns rather than unwinds (Ctx::abandoned).
    if (stopping_ == Stopping::Drop && ctx.tool_call_outermost && ctx.place.path.empty()) {
      ctx.abandoned = true;
      return false;
    }
    stopped(ctx);
  }
  return true;
}

JournalCall& ExecutionState::new_call(const Ctx& ctx) {
  return journal_.new_call(journal_.branch(ctx.place.path));
}

std::vector<ToolCall> ExecutionState::ledger() const {
  if (stopping_ == Stopping::Drop) return {};  // nobody reads it
  std::vector<const JournalCall*> calls;
  calls.reserve(journal_.tool_count());
  for (const auto& [_, branch] : journal_.branches())
    for (const JournalCall& c : branch.tools)
      calls.push_back(&c);
  std::sort(calls.begin(), calls.end(), [](const JournalCall* a, const JournalCall* b) {
    return a->ledger_seq < b->ledger_seq;
  });
  std::vector<ToolCall> out;
  out.reserve(calls.size());
  for (const JournalCall* c : calls)
    out.push_back(c->ledger_entry());
  return out;
}

int64_t ExecutionState::clock_ms(Ctx& ctx) {
  uint32_t read = ctx.place.clock_reads++;
  if (const BranchJournal* branch = journal_.find(ctx.place.path)) {
    if (auto ms = branch->clock(read)) {
      ++replayed_clocks_;
      return *ms;
    }
  }
  if (replaying_)
    diverge(
        fmt::format("the program reads the clock (read {} of branch \"{}\") where the "
                    "journal holds no reading",
                    read, ctx.place.path));
  using namespace std::chrono;
  int64_t ms = duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  journal_.add_clock(ctx.place.path, ms);
  return ms;
}

void ExecutionState::branch_started(Ctx& parent, Ctx& branch, uint32_t call, size_t index) {
  branch.world = this;
  branch.place.path = fmt::format("{}p{}.{}/", parent.place.path, call, index);
  contexts_.push_back(&branch);
}

void ExecutionState::branch_ended(Ctx& branch) {
  auto it = std::find(contexts_.begin(), contexts_.end(), &branch);
  if (it != contexts_.end()) contexts_.erase(it);
}

void ExecutionState::diverge(std::string what) const {
  std::string engines =
      recorded_by_ == engine_
          ? fmt::format("it was written by this engine ({})", engine_)
          : fmt::format("it was written by {}; this is {}", recorded_by_, engine_);
  throw_error(ErrorKind::SnapshotDivergence,
              fmt::format("the snapshot does not replay: {} ({})", what, engines),
              "load a snapshot with the engine and the program that wrote it");
}

// ---------------------------------------------------------------- bytes

std::string ExecutionState::dump(std::string_view key) const {
  if (done_)
    throw_error(ErrorKind::ArgsError, "the execution is done: there is nothing to dump",
                "read its outcome with step()");
  if (inputs_bytes_.empty()) {
    SnapshotInputs in;
    in.source = std::string(program_ ? program_source(*program_) : source_);
    in.compiled_in_run = !program_;
    if (!context_text_.empty()) {
      in.context_is_json = true;
      in.context_json = context_text_;
    } else if (options_.prepared_context) {
      ExportBudget budget;
      budget.remaining = SIZE_MAX;
      in.context = export_value(options_.prepared_context->data, budget);
    } else {
      in.context = options_.context;
    }
    in.memory = options_.memory;
    in.turn_history = options_.turn_history;
    in.signature = options_.signature;
    in.float_precision = options_.float_precision;
    in.filter_context = options_.filter_context;
    in.budget = options_.budget;
    for (const auto& [name, tool] : options_.tools)
      in.tools.push_back({name, tool.cacheable, tool.deferred, tool.needs_approval});
    in.deferred_tools = options_.deferred_tools;
    inputs_bytes_ = encode_inputs(in);
  }
  return encode_snapshot(engine_, inputs_bytes_, options_.limits, journal_, pending_ids(),
                         approval_ids(), key);
}

void ExecutionState::replay(Journal journal, std::vector<std::string> pending_ids,
                            std::vector<std::string> approvals, std::string recorded_by,
                            std::string inputs_bytes) {
  journal_ = std::move(journal);
  inputs_bytes_ = std::move(inputs_bytes);
  replaying_ = true;
  pending_at_dump_.clear();
  for (std::string& id : pending_ids)
    pending_at_dump_.insert(std::move(id));
  approvals_at_dump_.clear();
  for (std::string& id : approvals)
    approvals_at_dump_.insert(std::move(id));
  recorded_by_ = std::move(recorded_by);
  journal_tools_ = journal_.tool_count();
  for (const auto& [_, b] : journal_.branches())
    journal_clocks_ += b.clock_reads();
}

void ExecutionState::check_replay() {
  replaying_ = false;
  if (done_) {
    if (step_.error.kind == ErrorKind::SnapshotDivergence) throw LispError(step_.error);
    // A limit reached while replaying ends the execution as it would any run.
    if (!step_.ok && is_resource_error(step_.error.kind)) return;
    std::vector<std::string> expected(pending_at_dump_.begin(), pending_at_dump_.end());
    diverge(fmt::format("the program ended ({}) where it waited on {}",
                        step_.ok ? "with a value" : std::string(reason_name(step_.error.kind)),
                        id_list(expected)));
  }
  std::vector<std::string> now = pending_ids();
  std::set<std::string, std::less<>> waiting(now.begin(), now.end());
  std::string problem;
  if (waiting != pending_at_dump_) {
    std::vector<std::string> expected(pending_at_dump_.begin(), pending_at_dump_.end());
    problem = fmt::format("it waits on {} where the snapshot waited on {}", id_list(now),
                          id_list(expected));
  } else if (replayed_tools_ != journal_tools_ || replayed_clocks_ != journal_clocks_) {
    problem = fmt::format("it used {} of the journal's {} tool calls and {} of its {} clock reads",
                          replayed_tools_, journal_tools_, replayed_clocks_, journal_clocks_);
  }
  if (problem.empty()) return;
  try {
    diverge(problem);
  } catch (LispError&) {
    cancel();
    throw;
  }
}

// ---------------------------------------------------------------- the API

Execution::Execution(std::unique_ptr<ExecutionState> state) : state_(std::move(state)) {}
Execution::Execution(Execution&&) noexcept = default;

Execution& Execution::operator=(Execution&&) noexcept = default;
Execution::~Execution() = default;

ExecutionState& Execution::state() const {
  if (!state_)
    throw_error(ErrorKind::ArgsError, "this Execution holds no execution (it was moved from)",
                "use the Execution it was moved to");
  return *state_;
}

bool Execution::done() const {
  ExecutionState& s = state();
  std::lock_guard lock(s.api_mutex);
  return s.done();
}

const Step& Execution::step() const {
  ExecutionState& s = state();
  std::lock_guard lock(s.api_mutex);
  if (!s.done())
    throw_error(ErrorKind::ArgsError, "the execution is suspended: it has no outcome yet",
                "answer its pending calls with resume()");
  return s.step();
}

std::vector<PendingCall> Execution::pending() const {
  ExecutionState& s = state();
  std::lock_guard lock(s.api_mutex);
  return s.pending();
}

Execution& Execution::resume(Answers answers) {
  ExecutionState& s = state();
  std::lock_guard lock(s.api_mutex);
  s.resume(std::move(answers));
  return *this;
}

void Execution::cancel() {
  ExecutionState& s = state();
  std::lock_guard lock(s.api_mutex);
  s.cancel();
}

std::string Execution::dump(std::string_view key) const {
  ExecutionState& s = state();
  std::lock_guard lock(s.api_mutex);
  return s.dump(key);
}

size_t Execution::heap_bytes() const {
  ExecutionState& s = state();
  std::lock_guard lock(s.api_mutex);
  return s.heap_bytes();
}

namespace {

// Executions wait in this process's memory: they cannot run in a worker.
void refuse_isolation(const RunOptions& options) {
  if (options.isolate)
    throw_error(ErrorKind::ArgsError, "executions (start, load) cannot run isolated",
                "leave RunOptions::isolate unset for ptc::start and ptc::load, or use ptc::run");
}

}  // namespace

Execution start(std::string_view source, const RunOptions& options) {
  refuse_isolation(options);
  auto state = std::make_unique<ExecutionState>(std::string(source), nullptr, options);
  state->run_until_waiting();
  return Execution(std::move(state));
}

Execution start(const Program& program, const RunOptions& options) {
  refuse_isolation(options);
  auto state = std::make_unique<ExecutionState>(std::string(), program.shared_from_this(), options);
  state->run_until_waiting();
  return Execution(std::move(state));
}

SnapshotInfo inspect_snapshot(std::string_view bytes, std::string_view key) {
  Snapshot snapshot = decode_snapshot(bytes, key);
  SnapshotInfo info;
  info.engine = std::move(snapshot.inputs.engine);
  info.source = std::move(snapshot.inputs.source);
  info.limits = snapshot.inputs.limits;
  for (const SnapshotTool& t : snapshot.inputs.tools)
    info.tools.push_back(t.name);
  for (const std::string& name : snapshot.inputs.deferred_tools)
    if (std::find(info.tools.begin(), info.tools.end(), name) == info.tools.end())
      info.tools.push_back(name);
  info.pending = std::move(snapshot.pending);
  info.approvals = std::move(snapshot.approvals);
  return info;
}

Execution load(std::string_view bytes, const RunOptions& options, std::string_view key) {
  refuse_isolation(options);
  Snapshot snapshot = decode_snapshot(bytes, key);
  SnapshotInputs& in = snapshot.inputs;
  RunOptions o = options;
  if (o.limits.pmap_max_concurrency == 0)
    o.limits.pmap_max_concurrency = in.limits.pmap_max_concurrency;
  o.context = in.context;
  o.context_json = in.context_is_json ? std::string_view(in.context_json) : std::string_view();
  o.prepared_context = nullptr;
  o.memory = in.memory;
  o.turn_history = in.turn_history;
  o.signature = in.signature;
  o.float_precision = in.float_precision;
  o.filter_context = in.filter_context;
  o.budget = in.budget;
  // The program was compiled against these tools: one the host does not give
  // now is answered by the host.
  for (const SnapshotTool& t : in.tools)
    if (!o.tools.count(t.name))
      o.tools[t.name] = Tool{nullptr, t.cacheable, false, true, t.needs_approval};
  // Names it deferred stay deferred unless the host gives the tool now.
  for (const std::string& name : in.deferred_tools)
    if (!o.tools.count(name) &&
        std::find(o.deferred_tools.begin(), o.deferred_tools.end(), name) == o.deferred_tools.end())
      o.deferred_tools.push_back(name);
  // A program compiled apart (ptc::start(program)) is compiled apart again,
  // once: a durable host loads the same programs again and again. One the
  // run compiled itself is compiled by the replay alike (the heap it used
  // counts the compiled program).
  static ProgramCache* loaded_programs = new ProgramCache(64, size_t{16} << 20);
  std::shared_ptr<const Program> program;
  if (!in.compiled_in_run) {
    try {
      program = loaded_programs->get(in.source, o);
    } catch (LispError&) {
      // It does not compile here: the run reports it (as a divergence).
    }
  }
  auto state = std::make_unique<ExecutionState>(program ? std::string() : std::move(in.source),
                                                std::move(program), std::move(o));
  state->replay(std::move(snapshot.journal), std::move(snapshot.pending),
                std::move(snapshot.approvals), std::move(in.engine),
                std::move(snapshot.inputs_bytes));
  state->run_until_waiting();
  state->check_replay();
  return Execution(std::move(state));
}

}  // namespace ptc
