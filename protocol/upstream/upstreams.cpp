#include "protocol/upstream/upstreams.hpp"

#include <fnmatch.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "include/ptc/error.hpp"
#include "protocol/upstream/http_client.hpp"
#include "protocol/upstream/reply_decoding.hpp"
#include "scheduler/cooperative.hpp"

namespace ptc::upstream {

namespace {

HostValue kw(std::string_view s) {
  return HostValue::keyword(std::string(s));
}
HostValue str(std::string s) {
  return HostValue::string(std::move(s));
}

std::string list_names(const std::vector<std::string>& names, size_t max = 40) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < max; ++i)
    out += fmt::format("{}{}", i ? ", " : "", names[i]);
  if (names.size() > max) out += fmt::format(", ... ({} in all)", names.size());
  return out.empty() ? "(none)" : out;
}

// A value with every string redacted (keys too).
HostValue redact_value(const HostValue& v, const Redactor& r) {
  if (r.empty()) return v;
  switch (v.kind()) {
    case HostValue::Kind::String:
      return HostValue::string(r.redact(v.text()));
    case HostValue::Kind::Keyword:
      return HostValue::keyword(r.redact(v.text()));
    case HostValue::Kind::Vector:
    case HostValue::Kind::Set: {
      std::vector<HostValue> items;
      for (const HostValue& i : v.items())
        items.push_back(redact_value(i, r));
      return v.kind() == HostValue::Kind::Set ? HostValue::set(std::move(items))
                                              : HostValue::vector(std::move(items));
    }
    case HostValue::Kind::Map: {
      std::vector<std::pair<HostValue, HostValue>> entries;
      const auto& items = v.items();
      for (size_t i = 0; i + 1 < items.size(); i += 2)
        entries.emplace_back(redact_value(items[i], r), redact_value(items[i + 1], r));
      return HostValue::map(std::move(entries));
    }
    default:
      return v;
  }
}

}  // namespace

HostValue world_fault(std::string_view reason, std::string message) {
  return HostValue::map({{kw("ok"), HostValue::boolean(false)},
                         {kw("reason"), kw(reason)},
                         {kw("message"), str(std::move(message))}});
}

std::shared_ptr<Upstreams> Upstreams::start(UpstreamsConfig config, bool required, LogFn log,
                                            std::vector<std::string>* errors) {
  std::shared_ptr<Upstreams> ups(new Upstreams());
  ups->config_ = std::move(config);
  for (auto& [name, cfg] : ups->config_.upstreams) {
    Server& s = ups->servers_[name];
    s.name = name;
    s.description = cfg.description;
    s.read_only = cfg.read_only_tools;
    s.approval = cfg.approval;
    if (cfg.transport == "mcp_http")
      s.client = std::make_unique<HttpClient>(cfg, &ups->config_.redactor, log);
    else
      s.client = std::make_unique<StdioClient>(cfg, &ups->config_.redactor, log);
  }
  std::vector<std::thread> starters;
  for (auto& [name, s] : ups->servers_) {
    Server* sp = &s;
    starters.emplace_back([sp] { sp->failure = sp->client->start(); });
  }
  for (auto& t : starters)
    t.join();
  bool failed = false;
  for (auto& [name, s] : ups->servers_) {
    if (!s.failure.empty()) {
      failed = true;
      s.failure = ups->redact(s.failure);
      if (errors) errors->push_back(fmt::format("upstream {}: {}", name, s.failure));
      s.client->stop();
      continue;
    }
    s.available = true;
    for (const HostValue& t : s.client->tools()) {
      s.tools[t.get("name")->text()] = t;
      const HostValue* ann = t.get("annotations");
      const HostValue* ro =
          ann && ann->kind() == HostValue::Kind::Map ? ann->get("readOnlyHint") : nullptr;
      if (ro && ro->kind() == HostValue::Kind::Bool && ro->as_bool())
        s.read_only.push_back(t.get("name")->text());
    }
  }
  if (failed && required) return nullptr;
  auto catalog = std::make_shared<ToolCatalog>();
  for (auto& [name, s] : ups->servers_) {
    catalog->servers.emplace_back(name, s.description);
    for (auto& [tool, def] : s.tools) {
      CatalogTool t;
      t.server = name;
      t.name = ups->redact(tool);
      if (const HostValue* d = def.get("description"); d && d->kind() == HostValue::Kind::String)
        t.description = ups->redact(d->text());
      if (const HostValue* schema = def.get("inputSchema"))
        t.input_schema = redact_value(*schema, ups->config_.redactor);
      t.read_only = ups->read_only(name, tool);
      catalog->tools.push_back(std::move(t));
    }
  }
  ups->catalog_ = std::move(catalog);
  return ups;
}

Upstreams::~Upstreams() {
  std::vector<std::thread> stoppers;
  for (auto& [name, s] : servers_) {
    UpstreamClient* c = s.client.get();
    stoppers.emplace_back([c] { c->stop(); });
  }
  for (auto& t : stoppers)
    t.join();
}

bool Upstreams::read_only(const std::string& server, const std::string& tool) const {
  auto it = servers_.find(server);
  if (it == servers_.end()) return false;
  const auto& ro = it->second.read_only;
  return std::find(ro.begin(), ro.end(), tool) != ro.end();
}

bool Upstreams::needs_approval(std::string_view server, std::string_view tool) const {
  auto it = servers_.find(std::string(server));
  if (it == servers_.end()) return false;
  std::string name(tool);
  for (const std::string& pattern : it->second.approval)
    if (fnmatch(pattern.c_str(), name.c_str(), FNM_NOESCAPE) == 0) return true;
  return false;
}

HostValue Upstreams::call(const std::string& server, const std::string& tool, const HostValue& args,
                          Clock::time_point deadline, const std::function<bool()>& cancelled,
                          std::string* programmer_error) const {
  auto it = servers_.find(server);
  if (it == servers_.end()) {
    std::vector<std::string> names;
    for (auto& [n, s] : servers_)
      names.push_back(n);
    *programmer_error = fmt::format("tool/call: unknown server \"{}\"; the servers are: {}", server,
                                    list_names(names));
    return {};
  }
  const Server& s = it->second;
  if (!s.available)
    return world_fault("upstream_unavailable",
                       fmt::format("upstream {} is unavailable: {}", server, s.failure));
  if (!s.tools.count(tool)) {
    std::vector<std::string> names;
    for (auto& [n, t] : s.tools)
      names.push_back(n);
    *programmer_error = fmt::format("tool/call: server {} has no tool \"{}\"; its tools are: {}",
                                    server, tool, list_names(names));
    return {};
  }
  if (args.kind() != HostValue::Kind::Map) {
    *programmer_error = "tool/call: :args must be a map (the tool's arguments)";
    return {};
  }
  auto limit = Clock::now() + std::chrono::milliseconds(s.client->config().timeout_ms);
  HostValue params = HostValue::map({{str("name"), str(tool)}, {str("arguments"), args}});
  Reply r;
  auto request = [&] {
    r = s.client->request("tools/call", params, std::min(deadline, limit), cancelled);
  };
  if (s.client->cooperative())
    request();
  else
    coop::run_blocking(request);  // a blocking client: on a thread of its own inside a pmap
  switch (r.status) {
    case Reply::Status::Ok:
      break;
    case Reply::Status::Unavailable:
      return world_fault("upstream_unavailable", r.message);
    case Reply::Status::UpstreamError:
      return world_fault("upstream_error", redact(fmt::format("upstream {} answered {}: {}", server,
                                                              tool, r.message)));
    case Reply::Status::Timeout:
      return world_fault("timeout", r.message);
    case Reply::Status::TooLarge:
      return world_fault("response_too_large", r.message);
    case Reply::Status::Cancelled:
      return world_fault("cancelled", r.message);
  }
  std::string text;
  HostValue value = tool_payload(r.result, &text);
  const HostValue* is_error = r.result.get("isError");
  if (is_error && is_error->kind() == HostValue::Kind::Bool && is_error->as_bool())
    return world_fault("tool_error",
                       redact(fmt::format("{}/{} failed: {}", server, tool,
                                          text.empty() ? std::string("(no message)") : text)));
  return HostValue::map(
      {{kw("ok"), HostValue::boolean(true)}, {kw("value"), redact_value(value, config_.redactor)}});
}

HostValue Upstreams::describe_servers() const {
  std::vector<HostValue> out;
  for (auto& [name, s] : servers_) {
    std::vector<HostValue> tools;
    for (auto& [n, t] : s.tools)
      tools.push_back(str(n));
    std::vector<std::pair<HostValue, HostValue>> e{
        {kw("name"), str(name)},
        {kw("description"), str(s.description)},
        {kw("available"), HostValue::boolean(s.available)},
        {kw("tool_count"), HostValue::integer(static_cast<int64_t>(s.tools.size()))},
        {kw("tools"), HostValue::vector(std::move(tools))}};
    if (!s.available) e.emplace_back(kw("failure"), str(s.failure));
    out.push_back(HostValue::map(std::move(e)));
  }
  return redact_value(HostValue::vector(std::move(out)), config_.redactor);
}

std::string catalog_description(const Upstreams& upstreams, std::string_view mode) {
  std::string head =
      "\n\nUpstream MCP tools: call them from the program with "
      "(tool/call {:server \"S\" :tool \"T\" :args {...}}), which returns {:ok true :value v} "
      "or {:ok false :reason :timeout :message \"...\"} (also :tool_error, :upstream_error, "
      ":upstream_unavailable, :response_too_large, :cap_exhausted); (pmap #(tool/call ...) xs) "
      "calls them concurrently. (tool/servers) lists every server with its tools.\n";
  std::string inline_text, lazy_text = "Servers:";
  size_t tools = 0;
  for (const auto& [name, s] : upstreams.servers()) {
    lazy_text +=
        fmt::format(" {} ({} tools{})", name, s.tools.size(), s.available ? "" : ", unavailable");
    inline_text +=
        fmt::format("- {}{}{}:", name, s.description.empty() ? "" : " - ", s.description);
    for (const auto& [tool, def] : s.tools) {
      ++tools;
      std::string desc;
      if (const HostValue* d = def.get("description"); d && d->kind() == HostValue::Kind::String)
        desc = d->text().substr(0, d->text().find('\n'));
      if (desc.size() > 80) desc = desc.substr(0, 77) + "...";
      inline_text += fmt::format("\n  {}.{}{}{}", name, tool, desc.empty() ? "" : " - ", desc);
    }
    if (!s.available) inline_text += " (unavailable)";
    inline_text += "\n";
  }
  bool use_inline = mode == "inline" || (mode == "auto" && tools <= 8 && inline_text.size() <= 800);
  return upstreams.redact(head + (use_inline ? inline_text : lazy_text + "\n"));
}

namespace {

struct RunState {
  std::atomic<uint32_t> calls{0};
  std::mutex mutex;
  std::map<std::string, HostValue> cache;  // read-only results by server, tool and args key
};

std::string text_arg(const HostValue& args, std::string_view key) {
  const HostValue* v = args.get(key);
  if (!v || (v->kind() != HostValue::Kind::String && v->kind() != HostValue::Kind::Keyword))
    return {};
  return v->text();
}

}  // namespace

namespace {

// tool/call and tool/servers as attach() makes them. Named types, so that a
// new attach (each eval of a Session) tells them from a host's own tools.
struct CallTool {
  std::shared_ptr<const Upstreams> upstreams;
  std::shared_ptr<RunState> state;
  UpstreamLimits limits;

  ToolResult operator()(const HostValue& args) const {
    if (args.kind() != HostValue::Kind::Map)
      return ToolResult::failure(
          "tool/call takes a map: {:server \"fs\" :tool \"read_text_file\" :args {...}}");
    std::string server = text_arg(args, "server");
    std::string tool = text_arg(args, "tool");
    if (server.empty() || tool.empty())
      return ToolResult::failure(
          "tool/call needs :server and :tool (strings): {:server \"fs\" :tool \"read_text_file\" "
          ":args {...}}; (tool/servers) lists them");
    const HostValue* a = args.get("args");
    HostValue call_args = a ? *a : HostValue::map({});
    std::string key;
    bool ro = upstreams->read_only(server, tool);
    if (ro && call_args.kind() == HostValue::Kind::Map) {
      key = fmt::format("{}\n{}\n{}", server, tool, canonical_args_key(call_args));
      std::lock_guard lock(state->mutex);
      if (auto it = state->cache.find(key); it != state->cache.end())
        return ToolResult::success(it->second);
    }
    if (state->calls.fetch_add(1) >= limits.max_calls_per_program)
      return ToolResult::success(world_fault(
          "cap_exhausted", fmt::format("this program already made {} upstream calls (the cap)",
                                       limits.max_calls_per_program)));
    try {
      (void)to_json(call_args);
    } catch (const LispError& e) {
      return ToolResult::failure(
          fmt::format("tool/call: :args must be JSON data (maps, vectors, strings, numbers, "
                      "booleans, nil): {}",
                      e.error().message));
    }
    const ToolCallContext* ctx = current_tool_call();
    auto deadline = ctx ? ctx->deadline() : Clock::time_point::max();
    std::function<bool()> cancelled;
    if (ctx) cancelled = [ctx] { return ctx->cancelled(); };
    std::string programmer_error;
    HostValue out =
        upstreams->call(server, tool, call_args, deadline, cancelled, &programmer_error);
    if (!programmer_error.empty()) return ToolResult::failure(upstreams->redact(programmer_error));
    if (ro && !key.empty()) {
      const HostValue* ok = out.get("ok");
      if (ok && ok->as_bool()) {
        std::lock_guard lock(state->mutex);
        state->cache.emplace(key, out);
      }
    }
    return ToolResult::success(std::move(out));
  }
};

struct ServersTool {
  std::shared_ptr<const Upstreams> upstreams;
  ToolResult operator()(const HostValue&) const {
    return ToolResult::success(upstreams->describe_servers());
  }
};

}  // namespace

std::string host_tool_conflict(const Tools& tools) {
  for (const char* name : {"call", "servers"}) {
    auto it = tools.find(name);
    if (it == tools.end() || it->second.fn.target<CallTool>() ||
        it->second.fn.target<ServersTool>())
      continue;
    return fmt::format(
        "a host tool is named \"{}\", but with upstreams tool/call and tool/servers are the "
        "upstreams' own; rename the host tool",
        name);
  }
  return {};
}

void attach(RunOptions& options, std::shared_ptr<const Upstreams> upstreams,
            UpstreamLimits limits) {
  if (std::string conflict = host_tool_conflict(options.tools); !conflict.empty())
    throw LispError(ErrorKind::ArgsError, conflict);
  Tool call;
  call.fn = CallTool{upstreams, std::make_shared<RunState>(), limits};
  call.cooperative = true;  // Upstreams::call runs a blocking client's request apart itself
  call.approval_when = [upstreams](const HostValue& args) {
    const HostValue* server = args.get("server");
    const HostValue* tool = args.get("tool");
    return server && tool && server->kind() == HostValue::Kind::String &&
           tool->kind() == HostValue::Kind::String &&
           upstreams->needs_approval(server->text(), tool->text());
  };
  options.tools["call"] = std::move(call);
  Tool servers;
  servers.fn = ServersTool{upstreams};
  servers.cooperative = true;  // never waits
  options.tools["servers"] = std::move(servers);
  options.tool_catalog = upstreams->catalog();
}

}  // namespace ptc::upstream
