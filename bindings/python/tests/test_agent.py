"""ptc.Agent: the agent loop of libptc_protocol with a scripted model. The
scripts of `ptc agent`'s own tests (tests/cli/agent: seed 003's transcript
of combined mode, the tool-call and content transports) replayed through
Python give the run `ptc agent --script` prints (PTC_CLI, set by ctest); then the request
the model gets, the answers it may give, errors, and async models and tools
with run_async, several agents at once."""

import asyncio
import json
import os
import pathlib
import subprocess

import pytest

import ptc

CLI = os.environ.get("PTC_CLI")
needs_cli = pytest.mark.skipif(not CLI, reason="PTC_CLI (the ptc command) is not set")
SCRIPTS = pathlib.Path(__file__).resolve().parents[3] / "tests" / "cli" / "agent"


def eval_call(call_id, program):
    return {"role": "assistant", "content": None,
            "tool_calls": [{"id": call_id, "type": "function",
                            "function": {"name": "lisp_eval",
                                         "arguments": json.dumps({"program": program})}}]}


class Scripted:
    """A model that answers with the script's messages in turn, and records
    the requests it got."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.requests = []

    def __call__(self, request):
        self.requests.append(request)
        if len(self.requests) > len(self.answers):
            raise RuntimeError(f"the script has no response left for turn "
                               f"{len(self.requests)} (it has {len(self.answers)})")
        return self.answers[len(self.requests) - 1]


def replay_tool(name, spec, executions):
    """A Python tool answering as the script's replay table does."""

    def call(args):
        executions[name] = executions.get(name, 0) + 1
        for entry in spec.get("replay", []):
            if "args" in entry and entry["args"] != args:
                continue
            if "error" in entry:
                raise ptc.ToolError(entry["error"])
            return entry["result"]
        raise ptc.ToolError(f"no recorded call of {name}")

    return call


def agent_of_script(script, executions, llm=None):
    """The Agent a `ptc agent --script` file describes."""
    options = dict(script.get("agent", {}))
    tools = {}
    for name, spec in options.pop("tools", {}).items():
        tools[name] = ptc.AgentTool(replay_tool(name, spec, executions),
                                    description=spec.get("description"),
                                    signature=spec.get("signature"), expose=spec.get("expose"),
                                    cache=spec.get("cache", False),
                                    native_result=spec.get("native_result"))
    return ptc.Agent(llm or Scripted(script["llm"]), tools, prompt=script.get("prompt"),
                     **options)


def run_cli(path):
    done = subprocess.run([CLI, "agent", "--script", str(path)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


# ---------------------------------------------------------------- the CLI's scripts


@needs_cli
@pytest.mark.parametrize("name", ["combined_cache_bridge.json", "tool_call_return.json",
                                  "content_return.json"])
def test_a_script_runs_as_ptc_agent_runs_it(name):
    script = json.loads((SCRIPTS / name).read_text())
    executions = {}
    result = agent_of_script(script, executions).run()
    expected = run_cli(SCRIPTS / name)
    assert executions == expected.pop("tool_executions")
    assert result.doc == expected


def test_seed_003_the_cache_bridge_transcript():
    # Combined mode: the native call gets a metadata preview of 1842 rows,
    # lisp_eval reuses the cached rows (search_logs runs once), and the
    # model's next text is the answer.
    script = json.loads((SCRIPTS / "combined_cache_bridge.json").read_text())
    executions = {}
    model = Scripted(script["llm"])
    result = agent_of_script(script, executions, model).run()
    assert result.ok, result.fail_message
    assert result.value == "There were 1842 errors with code 42 in the queried window."
    assert executions == {"search_logs": 1}
    assert len(result.turns) == 3 and result.native_tool_calls == 1
    tool_messages = [m for m in result.messages if m["role"] == "tool"]
    preview = json.loads(tool_messages[0]["content"])
    assert preview["result_count"] == 1842 and preview["full_result_cached"] is True
    assert "rows" not in preview and "result" not in preview
    assert json.loads(tool_messages[1]["content"])["result"] == "user=> {:total 1842}"
    layers = [(e["tool_name"], e["exposure_layer"], e["cached"]) for e in result.telemetry
              if e["event"] == "tool_call"]
    assert layers == [("search_logs", "native", False), ("lisp_eval", "native", False),
                      ("search_logs", "ptc_lisp", True)]
    # Text mode offers the native tool and lisp_eval, last.
    assert [t["function"]["name"] for t in model.requests[0]["tools"]] == ["search_logs",
                                                                           "lisp_eval"]
    assert all(r["output"] == "text" for r in model.requests)


def test_tool_call_transport_returns_the_signatures_value():
    script = json.loads((SCRIPTS / "tool_call_return.json").read_text())
    model = Scripted(script["llm"])
    result = agent_of_script(script, {}, model).run()
    assert result.ok and result.value == {"total": 42}
    assert result.memory == {"totals": [10, 32]}
    assert [t["program"] for t in result.turns] == [
        "(def totals (map :total data/orders))", "(return {:total (reduce + totals)})"]
    # ptc_lisp output: lisp_eval is the one native tool.
    assert [t["function"]["name"] for t in model.requests[0]["tools"]] == ["lisp_eval"]
    assert model.requests[0]["tools"][0] == ptc.tool_schema(form="openai")


def test_content_transport_programs_come_as_fenced_blocks():
    script = json.loads((SCRIPTS / "content_return.json").read_text())
    model = Scripted(script["llm"])
    agent = agent_of_script(script, {}, model)
    assert agent.request_tools == []
    result = agent.run()
    assert result.ok and result.value == {"total": 42}
    assert result.memory == {"totals": [10, 32]}
    assert [t["program"] for t in result.turns] == [
        "(def totals (map :total data/orders))", "(return {:total (reduce + totals)})"]
    # No native tools: the request has no "tools" key, the outcome of the
    # first program is the next user message, and no message is a tool's.
    assert all("tools" not in r for r in model.requests)
    assert model.requests[1]["messages"][-1]["role"] == "user"
    assert ";; totals = [10 32]" in model.requests[1]["messages"][-1]["content"]
    assert not [m for m in result.messages if m["role"] == "tool"]


# ---------------------------------------------------------------- requests and answers


def test_the_request_the_model_gets():
    model = Scripted(["42"])
    agent = ptc.Agent(model, {"get-rates": ptc.AgentTool(lambda a: {"eur": 1.1},
                                                         description="FX rates")},
                      prompt="How much?", signature=":int", system_prompt="Be brief.",
                      context={"orders": [{"total": 3}]})
    result = agent.run()
    assert result.ok and result.value == 42
    request = model.requests[0]
    assert request["turn"] == 1 and request["output"] == "ptc_lisp"
    assert request["system"] == agent.system_prompt
    assert request["system"].startswith("Be brief.\n\n")
    assert "(tool/get-rates" in request["system"]
    assert request["tools"] == agent.request_tools
    first = request["messages"][0]
    assert first["role"] == "user"
    assert "<mission>\nHow much?\n</mission>" in first["content"]
    assert "data/orders" in first["content"]
    assert result.messages[0] == {"role": "system", "content": request["system"]}


def test_run_takes_the_prompt():
    model = Scripted(["1", "2"])
    agent = ptc.Agent(model, prompt="first", signature=":int")
    assert agent.run().value == 1
    assert agent.run("second").value == 2
    assert "<mission>\nsecond\n</mission>" in model.requests[1]["messages"][0]["content"]


def test_a_program_turn_then_a_direct_answer_with_tokens():
    def answer(request):
        if request["turn"] == 1:
            return dict(eval_call("c1", "(def n (count data/xs)) n"),
                        tokens={"input": 100, "output": 7})
        feedback = json.loads(request["messages"][-1]["content"])
        assert feedback["result"] == "user=> 3"
        return {"role": "assistant", "content": "3", "tokens": {"input": 120, "output": 1,
                                                                "cache_read": 80}}

    result = ptc.Agent(answer, prompt="count", signature=":int", context={"xs": [1, 2, 3]}).run()
    assert result.ok and result.value == 3
    assert result.memory == {"n": 3}
    assert result.tokens == {"input": 220, "output": 8, "cache_creation": 0, "cache_read": 80}


def test_a_failing_tool_is_the_programs_error_and_the_run_goes_on():
    def get_user(args):
        raise KeyError("no such user")

    model = Scripted([eval_call("c1", "(tool/get-user {:id 7})"), "done"])
    result = ptc.Agent(model, {"get-user": get_user}, prompt="who").run()
    assert result.ok and result.value == "done"
    payload = json.loads(result.messages[3]["content"])
    assert payload["reason"] == "runtime_error" and "no such user" in payload["message"]
    assert payload["message"].startswith("tool_error")


def test_model_errors_end_the_run_with_llm_error():
    result = ptc.Agent(Scripted([]), prompt="x").run()
    assert not result.ok and result.fail_reason == "llm_error"
    assert result.fail_message == ("LLM call failed: the script has no response left for turn 1 "
                                   "(it has 0)")
    result = ptc.Agent(lambda r: {"error": "rate limited"}, prompt="x").run()
    assert result.fail_message == "LLM call failed: rate limited"
    result = ptc.Agent(lambda r: {"tool_calls": {}}, prompt="x").run()
    assert result.fail_message == ("LLM call failed: the model's reply: tool_calls: expected an "
                                   "array, got an object")
    result = ptc.Agent(lambda r: 42, prompt="x").run()
    assert "assistant message (a dict or a str), got int" in result.fail_message


def test_out_of_turns():
    model = Scripted([eval_call(f"c{i}", "(+ 1 1)") for i in range(3)])
    result = ptc.Agent(model, prompt="x", max_turns=2, signature="{a :int}").run()
    assert not result.ok and result.fail_reason == "max_turns_exceeded"
    assert len(model.requests) == 2


def test_options_that_cannot_work_raise_at_once():
    llm = Scripted([])
    with pytest.raises(ValueError, match="agent.output: .*|output must be"):
        ptc.Agent(llm, output="json")
    with pytest.raises(ValueError, match='agent.transport: "fenced" is not tool_call or content'):
        ptc.Agent(llm, transport="fenced")
    with pytest.raises(ValueError, match="use transport tool_call for combined mode"):
        ptc.Agent(llm, output="text", transport="content")
    with pytest.raises(ValueError, match="lisp_eval"):
        ptc.Agent(llm, {"lisp_eval": lambda a: 1})
    with pytest.raises(ValueError, match="invalid signature"):
        ptc.Agent(llm, signature="{a :nope")
    with pytest.raises(ValueError, match="max_turns must be at least 1"):
        ptc.Agent(llm, max_turns=0)
    with pytest.raises(ValueError, match='memory_strategy: "lazy" is not strict or rollback'):
        ptc.Agent(llm, memory_strategy="lazy")
    with pytest.raises(ValueError, match="native_result needs"):
        ptc.Agent(llm, {"f": ptc.AgentTool(lambda a: 1, native_result={"preview": "rows"})},
                  output="text")
    with pytest.raises(TypeError, match="max_turns must be an int"):
        ptc.Agent(llm, max_turns="3")
    with pytest.raises(TypeError, match="unexpected keyword argument 'timeout'"):
        ptc.Agent(llm, timeout=3)
    with pytest.raises(TypeError, match="either llm"):
        ptc.Agent(None)
    with pytest.raises(TypeError, match="llm must be callable"):
        ptc.Agent(42)


def test_program_limits_apply():
    model = Scripted([eval_call("c1", "(loop [i 0] (recur (inc i)))"), "gave up"])
    result = ptc.Agent(model, prompt="x", timeout_ms=50, loop_limit=100).run()
    payload = json.loads(result.messages[3]["content"])
    assert payload["status"] == "error" and "loop_limit" in payload["message"]


def test_memory_before_the_first_program():
    model = Scripted([eval_call("c1", "(return (* base 2))")])
    result = ptc.Agent(model, prompt="x", memory={"base": 21}).run()
    assert result.ok and result.value == 42


# ---------------------------------------------------------------- async


def test_run_async_with_an_async_model_and_tools():
    async def get_user(args):
        await asyncio.sleep(0)
        return {"name": f"user {args['id']}"}

    async def model(request):
        await asyncio.sleep(0)
        if request["turn"] == 1:
            return eval_call("c1", "(return (mapv :name (pmap #(tool/get-user {:id %}) [1 2])))")
        return "unreachable"

    result = asyncio.run(ptc.Agent(model, {"get-user": get_user}, prompt="x").run_async())
    assert result.ok and result.value == ["user 1", "user 2"]


def test_several_agents_at_once_share_the_loop():
    script = json.loads((SCRIPTS / "combined_cache_bridge.json").read_text())
    expected = agent_of_script(script, {}).run().doc
    agents = 4
    first_turns = 0
    all_started = None

    def async_model():
        answers = Scripted(script["llm"])

        async def model(request):
            nonlocal first_turns
            if request["turn"] == 1:
                # Every agent's first call waits for all the others': they
                # can only meet here if the runs are in flight together.
                first_turns += 1
                if first_turns == agents:
                    all_started.set()
                await all_started.wait()
            return answers(request)

        return model

    async def main():
        nonlocal all_started
        all_started = asyncio.Event()
        runs = [agent_of_script(script, {}, async_model()) for _ in range(agents)]
        return await asyncio.wait_for(asyncio.gather(*(a.run_async() for a in runs)), 30)

    results = asyncio.run(main())
    assert [r.doc for r in results] == [expected] * agents


def test_a_sync_run_with_an_async_model_says_to_use_run_async():
    async def model(request):
        return "x"

    result = ptc.Agent(model, prompt="x").run()
    assert result.fail_reason == "llm_error" and "run_async" in result.fail_message


def test_cancelling_run_async_ends_the_run():
    started = None

    async def model(request):
        started.set()
        await asyncio.sleep(60)

    async def main():
        nonlocal started
        started = asyncio.Event()
        task = asyncio.create_task(ptc.Agent(model, prompt="x").run_async())
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())


# ---------------------------------------------------------------- a real model

FAKE = pathlib.Path(__file__).resolve().parents[3] / "tests" / "cli"
KEY = "sk-test-5ecret-key-0123456789"


@pytest.fixture
def fake_provider(monkeypatch):
    """A local fake provider (tests/cli/fake_provider.py) and the key in the
    environment; closed after the test."""
    import sys
    sys.path.insert(0, str(FAKE))
    from fake_provider import FakeProvider
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    servers = []

    def start(wire, script):
        s = FakeProvider(wire, script, key=KEY)
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.close()


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_an_agent_with_a_model_calls_the_provider(fake_provider, wire):
    server = fake_provider(wire, [
        {"answer": {"tool_calls": [{"id": "t1", "name": "lisp_eval", "arguments": {
            "program": "(return {:total (reduce + (map :total data/orders))})"}}]}},
    ])
    agent = ptc.Agent(model=f"{wire}:fake-model", model_options={"base_url": server.base_url},
                      signature="{total :int}",
                      context={"orders": [{"total": 10}, {"total": 32}]})
    result = agent.run("Total of all orders?")
    assert result.ok, result
    assert result.value == {"total": 42}
    assert result.usage["calls"] == 1 and result.usage["input"] == 101
    assert server.problems == []
    assert KEY not in json.dumps(result.doc)


def test_a_model_failure_says_which_and_whether_to_retry(fake_provider):
    server = fake_provider("openai", [
        {"status": 401, "body": {"error": {"message": f"Incorrect API key provided: {KEY}",
                                           "code": "invalid_api_key"}}}])
    agent = ptc.Agent(model="openai:fake-model", model_options={"base_url": server.base_url})
    result = agent.run("hi")
    assert not result.ok
    assert (result.fail_reason, result.fail_kind, result.retryable) == \
        ("llm_error", "auth_failed", False)
    assert KEY not in result.fail_message


def test_an_agent_takes_llm_or_model_not_both():
    with pytest.raises(TypeError):
        ptc.Agent()
    with pytest.raises(TypeError):
        ptc.Agent(lambda r: "x", model="openai:gpt-4.1-mini")
    with pytest.raises(TypeError):
        ptc.Agent(lambda r: "x", model_options={"retries": 1})


def test_a_model_that_cannot_work_is_a_value_error(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    agent = ptc.Agent(model="anthropic:claude")
    with pytest.raises(ValueError, match="ANTHROPIC_API_KEY"):
        agent.run("hi")
