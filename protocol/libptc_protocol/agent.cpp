// The agent loop through the C API: AgentOptions from the agent's JSON (the
// mapping `ptc agent --script` uses, protocol/agent/agent_json.hpp) and the
// options handle (tool functions, program limits, memory, context), the
// model as a C callback answering each request's JSON or as a provider the
// agent calls itself (the agent's "model" object), the outcome as JSON.
#include <fmt/format.h>

#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <vector>

#include "capi/errors.hpp"
#include "capi/handles.hpp"
#include "protocol/agent/agent.hpp"
#include "protocol/agent/agent_json.hpp"
#include "protocol/agent/model/model_client.hpp"
#include "protocol/agent/model/model_json.hpp"
#include "protocol/libptc_protocol/text_out.hpp"
#include "runtime/error.hpp"

// A model's answer to one turn, set by the callback.
struct ptc_protocol_llm_reply {
  std::optional<ptc::protocol::LlmResponse> response;
};

namespace ptc::protocol::capi {

namespace {

using ptc::capi::InvalidArgument;

LlmResponse failed_call(std::string message) {
  LlmResponse r;
  r.ok = false;
  r.error = std::move(message);
  return r;
}

// The agent's context: "context" of the agent's JSON, or the options'
// (their JSON text parsed, or their map); not both, and not a prepared one.
void take_context(const RunOptions& run, AgentOptions& o) {
  if (run.prepared_context)
    throw InvalidArgument(
        "options: a prepared context is not supported by the agent loop; give the context as "
        "JSON (ptc_options_set_context_json or the agent's \"context\")");
  bool in_options = !run.context_json.empty() || !run.context.is_nil();
  if (!in_options) return;
  if (!o.context.is_nil())
    throw InvalidArgument(
        "the context is given twice: in the agent's \"context\" and in the options");
  o.context = run.context_json.empty() ? run.context : parse_json(run.context_json);
}

// AgentOptions from the agent's JSON and the options handle. Configuration
// errors are InvalidArgument.
AgentOptions agent_options(const HostValue& agent, const ptc_options* options) {
  const RunOptions& run = ptc::capi::run_options(options);
  AgentOptions o;
  std::set<std::string, std::less<>> configured;
  auto function = [&](const std::string& name, const HostValue&, const std::string& at) {
    auto it = run.tools.find(name);
    if (it == run.tools.end() || !it->second.fn)
      throw AgentJsonError(at +
                           ": the options have no tool of that name (give its function with "
                           "ptc_options_add_tool)");
    configured.insert(name);
    return it->second;
  };
  try {
    read_agent_options(agent, "agent", function, o);
  } catch (const AgentJsonError& e) {
    throw InvalidArgument(e.what());
  }
  if (const HostValue* p = agent.get("prompt"); p && !p->is_nil()) {
    if (p->kind() != HostValue::Kind::String)
      throw InvalidArgument("agent.prompt: expected a string");
    o.prompt = p->text();
  }
  for (const auto& [name, tool] : run.tools) {
    if (configured.contains(name) || !tool.fn) continue;  // configured, or deferred
    AgentTool t;
    t.name = name;
    t.tool = tool;
    o.tools.push_back(std::move(t));
  }
  take_context(run, o);
  o.memory = run.memory;
  o.program = run;
  o.program.context = HostValue();
  o.program.context_json = {};
  o.program.memory = HostValue();
  o.program.turn_history.clear();
  o.program.tools.clear();
  o.program.deferred_tools.clear();
  o.program.signature.clear();
  return o;
}

// The model client of the agent's "model" object, or nullptr when it has
// none; its settings' errors are InvalidArgument.
std::unique_ptr<ModelClient> model_of(const HostValue& agent) {
  const HostValue* m = agent.get("model");
  if (!m || m->is_nil()) return nullptr;
  try {
    std::string spec;
    ModelOptions options = model::model_options_from_json(*m, "agent.model", &spec);
    return model_client(spec, std::move(options));
  } catch (const std::invalid_argument& e) {
    throw InvalidArgument(e.what());
  }
}

// The agent, checked: its constructor's refusals are InvalidArgument.
std::unique_ptr<Agent> make_agent(AgentOptions o, LlmCallable llm) {
  try {
    return std::make_unique<Agent>(std::move(o), std::move(llm));
  } catch (const std::invalid_argument& e) {
    throw InvalidArgument(e.what());
  }
}

}  // namespace

}  // namespace ptc::protocol::capi

using ptc::capi::guarded;
using ptc::capi::InvalidArgument;
using ptc::capi::out_arg;
using ptc::capi::required;
namespace pc = ptc::protocol::capi;
namespace pr = ptc::protocol;

extern "C" {

ptc_status ptc_protocol_llm_reply_set_json(ptc_protocol_llm_reply* reply, const char* json,
                                           size_t len) {
  return guarded([&] {
    required(reply, "reply");
    try {
      ptc::HostValue answer = ptc::capi::json_arg(
          ptc::capi::text_arg(json, len, "the model's reply"), "the model's reply");
      reply->response = pr::llm_response_from_json(answer, "the model's reply");
    } catch (const InvalidArgument& e) {
      // The turn fails with what was wrong, whatever the callback does next.
      reply->response = pc::failed_call(e.what());
      throw;
    } catch (const pr::AgentJsonError& e) {
      reply->response = pc::failed_call(e.what());
      throw InvalidArgument(e.what());
    }
    return PTC_OK;
  });
}

ptc_status ptc_protocol_llm_reply_set_error(ptc_protocol_llm_reply* reply, const char* message,
                                            size_t len) {
  return guarded([&] {
    required(reply, "reply");
    reply->response = pc::failed_call(std::string(ptc::capi::text_arg(message, len, "message")));
    return PTC_OK;
  });
}

ptc_status ptc_protocol_agent_run(const char* agent_json, size_t agent_len,
                                  const ptc_options* options, ptc_protocol_llm_fn llm,
                                  void* llm_user, char** result_json, size_t* result_len) {
  return guarded([&] {
    out_arg(result_json, "result_json");
    required(agent_json, "agent_json");
    // Parsed once: the options and the model both read it (it may hold a large context).
    ptc::HostValue agent_object = ptc::capi::json_object_arg(
        ptc::capi::text_arg(agent_json, agent_len, "agent_json"), "agent_json");
    pr::AgentOptions o = pc::agent_options(agent_object, options);
    // "model": the agent talks to a provider itself (protocol/agent/model).
    std::unique_ptr<ptc::ModelClient> client = pc::model_of(agent_object);
    if (!llm && !client) throw InvalidArgument("llm must not be NULL without a \"model\"");
    if (llm && client) throw InvalidArgument("give llm or a \"model\", not both");
    std::vector<ptc::HostValue> events;
    std::mutex events_mutex;
    o.telemetry = [&](const pr::AgentEvent& e) {
      std::lock_guard lock(events_mutex);
      events.push_back(pr::agent_event_json(e));
    };
    pr::LlmCallable model;
    if (client) {
      model = client->callable();
    } else {
      model = [&](const pr::LlmRequest& request) {
        std::string request_text = ptc::to_json(pr::llm_request_json(request));
        ptc_protocol_llm_reply reply;
        llm(llm_user, request_text.c_str(), request_text.size(), &reply);
        if (!reply.response) return pc::failed_call("the model callback gave no reply");
        return std::move(*reply.response);
      };
    }
    std::unique_ptr<pr::Agent> agent = pc::make_agent(std::move(o), model);
    pr::AgentResult result = agent->run();
    std::vector<std::pair<ptc::HostValue, ptc::HostValue>> extra{
        {ptc::HostValue::string("telemetry"), ptc::HostValue::vector(std::move(events))}};
    if (client)
      extra.emplace_back(ptc::HostValue::string("usage"), ptc::model::usage_json(client->usage()));
    ptc::HostValue out = pr::agent_result_json(result, std::move(extra));
    pc::hand_out(ptc::to_json(out, true), result_json, result_len);
    ptc::capi::succeed();  // whatever the callbacks' own calls recorded
    return PTC_OK;
  });
}

ptc_status ptc_protocol_agent_describe(const char* agent_json, size_t agent_len,
                                       const ptc_options* options, char** out, size_t* len) {
  return guarded([&] {
    out_arg(out, "out");
    required(agent_json, "agent_json");
    pr::AgentOptions o = pc::agent_options(
        ptc::capi::json_object_arg(ptc::capi::text_arg(agent_json, agent_len, "agent_json"),
                                   "agent_json"),
        options);
    auto never = [](const pr::LlmRequest&) { return pc::failed_call("not running"); };
    std::unique_ptr<pr::Agent> agent = pc::make_agent(std::move(o), never);
    ptc::HostValue description = ptc::HostValue::map(
        {{ptc::HostValue::string("system"), ptc::HostValue::string(agent->system_prompt())},
         {ptc::HostValue::string("tools"), ptc::HostValue::vector(agent->request_tools())}});
    pc::hand_out(ptc::to_json(description, true), out, len);
    return PTC_OK;
  });
}

}  // extern "C"
