// What `ptc mcp` adds to a call, measured from outside over its stdio pipes:
//   BM_McpStdioRoundTrip   a tools/call of (+ 1 2) through the server process
//   BM_CatRoundTrip        the same bytes through `cat` (the pipes' own cost)
//   BM_InProcessRun        ptc::run of the same program in this process
// added per call = McpStdio - Cat - InProcess. Also a call carrying the 1000
// orders of the group_by_aggregate_1000 reference program in its context,
// against the same run in process, and the time from process start to the
// initialize reply, and the throughput of (+ 1 2) over Streamable HTTP with 8
// keep-alive clients (BM_McpHttpThroughput: items_per_second = calls/s).
// Usage: ptc_mcp_benchmarks (the ptc binary is found next to this one, or via
// PTC_BIN).
#include <arpa/inet.h>
#include <benchmark/benchmark.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "include/ptc/ptc.hpp"
#include "protocol/mcp/server.hpp"

extern char** environ;

namespace {

std::string ptc_binary() {
  if (const char* p = std::getenv("PTC_BIN")) return p;
  return PTC_BINARY;
}

// A child process with its stdin and stdout on pipes (and its stderr too when
// `read_stderr`: the HTTP server's log tells its port there).
class Child {
 public:
  explicit Child(std::vector<std::string> argv, bool read_stderr = false) {
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) std::abort();
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addclose(&fa, in[1]);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    if (read_stderr)
      posix_spawn_file_actions_adddup2(&fa, out[1], 2);
    else
      posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    std::vector<char*> args;
    for (auto& a : argv)
      args.push_back(a.data());
    args.push_back(nullptr);
    if (posix_spawnp(&pid_, args[0], &fa, nullptr, args.data(), environ) != 0) std::abort();
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    to_ = in[1];
    from_ = out[0];
  }
  ~Child() {
    stop();
    close(from_);
  }
  // Ends the child: stdin closed, SIGTERM, reaped (its output stays readable).
  void stop() {
    if (pid_ < 0) return;
    close(to_);
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  void write_line(const std::string& line) {
    std::string s = line + "\n";
    size_t off = 0;
    while (off < s.size()) {
      ssize_t n = ::write(to_, s.data() + off, s.size() - off);
      if (n <= 0) std::abort();
      off += static_cast<size_t>(n);
    }
  }
  std::string read_line() {
    for (;;) {
      if (size_t nl = buf_.find('\n'); nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return line;
      }
      char tmp[65536];
      ssize_t n = ::read(from_, tmp, sizeof tmp);
      if (n <= 0) return "";
      buf_.append(tmp, static_cast<size_t>(n));
    }
  }

 private:
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string buf_;
};

// The _meta envelope a revision 2026-07-28 request carries.
const char* kModernMeta =
    R"j("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}})j";

std::string call_frame(int id, const std::string& program, const std::string& context_json,
                       bool modern = false) {
  std::string args = ptc::to_json(
      ptc::HostValue::map({{ptc::HostValue::string("program"), ptc::HostValue::string(program)}}));
  if (!context_json.empty())
    args = args.substr(0, args.size() - 1) + ",\"context\":" + context_json + "}";
  return R"j({"jsonrpc":"2.0","id":)j" + std::to_string(id) +
         R"j(,"method":"tools/call","params":{"name":"lisp_eval","arguments":)j" + args +
         (modern ? std::string(",") + kModernMeta : std::string()) + "}}";
}

const char* kInit =
    R"j({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}})j";

// The group_by_aggregate_1000 program and its 1000 orders.
struct Reference {
  std::string program, context_json;
  ptc::HostValue context;
};
const Reference& group_by_aggregate() {
  static Reference r = [] {
    Reference out;
    std::ifstream in(PTC_BENCH_PROGRAMS);
    std::string line;
    while (std::getline(in, line)) {
      ptc::HostValue row = ptc::parse_json(line);
      if (row.get("id")->text() != "group_by_aggregate_1000") continue;
      out.program = row.get("program")->text();
      out.context = *row.get("context");
      out.context_json = ptc::to_json(out.context);
    }
    return out;
  }();
  return r;
}

// Arg 0: a 2025 client (after initialize); 1: revision 2026-07-28 (the envelope
// on every call, no handshake).
void BM_McpStdioRoundTrip(benchmark::State& state) {
  bool modern = state.range(0) == 1;
  Child server({ptc_binary(), "mcp", "--log-level", "error"});
  if (!modern) {
    server.write_line(kInit);
    server.read_line();
  }
  int id = 1;
  for (auto _ : state) {
    server.write_line(call_frame(id++, "(+ 1 2)", "", modern));
    benchmark::DoNotOptimize(server.read_line());
  }
}

void BM_CatRoundTrip(benchmark::State& state) {
  Child cat({"cat"});
  std::string frame = call_frame(1, "(+ 1 2)", "");
  std::string reply =
      R"j({"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"user=> 3"}],"isError":false}})j";
  for (auto _ : state) {
    cat.write_line(frame);
    benchmark::DoNotOptimize(cat.read_line());
    (void)reply;
  }
}

void BM_InProcessRun(benchmark::State& state) {
  for (auto _ : state) {
    ptc::Step s = ptc::run("(+ 1 2)");
    benchmark::DoNotOptimize(s.printed);
  }
}

// The server's own work on a call, without pipes or threads: parse the
// frame, check the arguments, run, render, encode the reply.
class Sink final : public ptc::mcp::Peer {
 public:
  void send(std::string frame) override { last = std::move(frame); }
  std::string last;
};

void BM_DispatchInProcess(benchmark::State& state) {
  ptc::mcp::ServerConfig config;
  auto server = ptc::mcp::make_server(config);
  auto sink = std::make_shared<Sink>();
  ptc::mcp::Caller caller{"bench", "bench", false};
  ptc::mcp::Server::Runner here = [](std::function<void()> call) { call(); };
  std::string frame = call_frame(1, "(+ 1 2)", "", state.range(0) == 1);
  for (auto _ : state) {
    server->handle(frame, sink, caller, here);
    benchmark::DoNotOptimize(sink->last);
  }
}

void BM_McpContextCall(benchmark::State& state) {
  const Reference& r = group_by_aggregate();
  Child server({ptc_binary(), "mcp", "--log-level", "error"});
  server.write_line(kInit);
  server.read_line();
  std::string frame = call_frame(1, r.program, r.context_json);
  for (auto _ : state) {
    server.write_line(frame);
    std::string reply = server.read_line();
    if (reply.find("\"isError\":false") == std::string::npos) state.SkipWithError(reply.c_str());
  }
}

void BM_InProcessContextRun(benchmark::State& state) {
  const Reference& r = group_by_aggregate();
  ptc::RunOptions o;
  o.context = r.context;
  for (auto _ : state) {
    ptc::Step s = ptc::run(r.program, o);
    benchmark::DoNotOptimize(s.printed);
  }
}

// Process start to the initialize reply, per start.
void BM_StartToInitializeReply(benchmark::State& state) {
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    Child server({ptc_binary(), "mcp", "--log-level", "error"});
    server.write_line(kInit);
    benchmark::DoNotOptimize(server.read_line());
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
}

// One keep-alive HTTP/1.1 connection speaking MCP to the server: blocking
// sockets, just enough parsing for Content-Length replies.
class HttpClient {
 public:
  // modern: revision 2026-07-28's headers (no session; the body carries the envelope).
  explicit HttpClient(int port, bool modern = false) : modern_(modern) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ < 0 || connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) std::abort();
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    port_ = port;
  }
  ~HttpClient() { close(fd_); }

  // POSTs `body` to /mcp; returns the reply body (the session id is kept).
  std::string post(const std::string& body) {
    std::string req = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port_) +
                      "\r\nContent-Type: application/json\r\n"
                      "Accept: application/json, text/event-stream\r\n";
    req += modern_ ? "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n"
                     "Mcp-Name: lisp_eval\r\n"
                   : "MCP-Protocol-Version: 2025-11-25\r\n";
    if (!session_.empty()) req += "Mcp-Session-Id: " + session_ + "\r\n";
    req += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    for (size_t off = 0; off < req.size();) {
      ssize_t n = ::send(fd_, req.data() + off, req.size() - off, MSG_NOSIGNAL);
      if (n <= 0) std::abort();
      off += static_cast<size_t>(n);
    }
    size_t end;
    while ((end = buf_.find("\r\n\r\n")) == std::string::npos)
      fill();
    std::string head = buf_.substr(0, end);
    buf_.erase(0, end + 4);
    if (session_.empty()) session_ = header(head, "mcp-session-id");
    size_t length = std::stoul("0" + header(head, "content-length"));
    while (buf_.size() < length)
      fill();
    std::string reply = buf_.substr(0, length);
    buf_.erase(0, length);
    return reply;
  }

 private:
  void fill() {
    char tmp[16384];
    ssize_t n = ::recv(fd_, tmp, sizeof tmp, 0);
    if (n <= 0) std::abort();
    buf_.append(tmp, static_cast<size_t>(n));
  }
  static std::string header(const std::string& head, const std::string& lower_name) {
    std::string h = head;
    for (char& c : h)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    size_t at = h.find("\r\n" + lower_name + ":");
    if (at == std::string::npos) return "";
    at += lower_name.size() + 3;
    size_t eol = head.find("\r\n", at);
    std::string v = head.substr(at, eol - at);
    v.erase(0, v.find_first_not_of(' '));
    return v;
  }
  int fd_ = -1, port_ = 0;
  bool modern_ = false;
  std::string buf_, session_;
};

// The port from the server's http_listening log line.
int listening_port(Child& server) {
  for (int i = 0; i < 50; ++i) {
    std::string line = server.read_line();
    if (line.find("http_listening") == std::string::npos) continue;
    size_t at = line.find("\"port\":");
    if (at != std::string::npos) return std::atoi(line.c_str() + at + 7);
  }
  std::abort();
}

// 8 keep-alive clients, each with its own MCP session (Arg 0) or speaking
// revision 2026-07-28 without one (Arg 1), calling (+ 1 2) as fast as the
// server answers; items_per_second is calls per second.
void BM_McpHttpThroughput(benchmark::State& state) {
  bool modern = state.range(0) == 1;
  constexpr int kClients = 8, kCallsPerClient = 2500;
  // The gate lets all 8 run (its default, min(8, cores), would answer busy).
  Child server({ptc_binary(), "mcp", "--http", "--http-port", "0", "--log-level", "info",
                "--max-concurrent-calls", "8"},
               true);
  int port = listening_port(server);
  std::thread drain_log([&] {  // a full stderr pipe would stall the server
    while (!server.read_line().empty()) {}
  });
  std::vector<std::unique_ptr<HttpClient>> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.push_back(std::make_unique<HttpClient>(port, modern));
    if (modern) continue;
    clients.back()->post(kInit);
    clients.back()->post(R"j({"jsonrpc":"2.0","method":"notifications/initialized"})j");
  }
  std::atomic<int64_t> failed{0};
  for (auto _ : state) {
    std::vector<std::thread> threads;
    for (int c = 0; c < kClients; ++c)
      threads.emplace_back([&, c] {
        for (int i = 0; i < kCallsPerClient; ++i) {
          std::string reply = clients[c]->post(call_frame(i + 1, "(+ 1 2)", "", modern));
          if (reply.find("user=> 3") == std::string::npos && failed.fetch_add(1) == 0)
            std::fprintf(stderr, "%s\n", reply.c_str());
        }
      });
    for (auto& t : threads)
      t.join();
  }
  clients.clear();
  server.stop();
  drain_log.join();
  if (failed.load() > 0) state.SkipWithError("a call did not answer user=> 3");
  state.SetItemsProcessed(state.iterations() * kClients * kCallsPerClient);
}

BENCHMARK(BM_McpStdioRoundTrip)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->MinTime(1.0);
BENCHMARK(BM_CatRoundTrip)->Unit(benchmark::kMicrosecond)->MinTime(1.0);
BENCHMARK(BM_InProcessRun)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DispatchInProcess)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_McpContextCall)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_InProcessContextRun)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_StartToInitializeReply)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(50)
    ->UseManualTime();

}  // namespace

BENCHMARK(BM_McpHttpThroughput)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(5);

BENCHMARK_MAIN();
