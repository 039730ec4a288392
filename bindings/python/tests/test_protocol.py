"""The protocol layer from Python (libptc_protocol): the lisp_eval tool's
schema per profile and its payloads, compared byte for byte with what the
ptc command prints (PTC_CLI, set by ctest); tools that raise; the payload
renderers; the C entry points' argument checks; and a missing
libptc_protocol, which leaves the rest of the module working."""

import asyncio
import concurrent.futures
import copy
import ctypes
import json
import os
import pathlib
import subprocess
import sys

import pytest

import ptc

CLI = os.environ.get("PTC_CLI")
needs_cli = pytest.mark.skipif(not CLI, reason="PTC_CLI (the ptc command) is not set")
PROFILES = ["in_process_with_app_tools", "in_process_text_mode", "mcp_no_tools"]


def cli(*args, stdin=None):
    """What the ptc command prints (stdout, stripped) and its exit code."""
    done = subprocess.run([CLI, *args], input=stdin, capture_output=True, text=True,
                          timeout=60)
    return done.stdout.strip(), done.returncode


# ---------------------------------------------------------------- schemas


@needs_cli
@pytest.mark.parametrize("profile", PROFILES)
def test_tool_schema_is_the_commands(profile):
    mcp, _ = cli("tool-schema", "--mcp", "--profile", profile)
    openai, _ = cli("tool-schema", "--profile", profile)
    assert ptc.tool_schema(profile) == json.loads(mcp)
    assert ptc.tool_schema(profile, form="openai") == json.loads(openai)


def test_tool_schema_shape_and_default_profile():
    schema = ptc.tool_schema()
    assert schema == ptc.tool_schema("in_process_with_app_tools")
    assert schema["name"] == "lisp_eval"
    assert schema["inputSchema"]["required"] == ["program"]
    assert "context" not in schema["inputSchema"]["properties"]
    assert "context" in ptc.tool_schema("mcp_no_tools")["inputSchema"]["properties"]
    openai = ptc.tool_schema(form="openai")
    assert openai["type"] == "function"
    assert openai["function"]["description"] == schema["description"]
    assert openai["function"]["parameters"] == schema["inputSchema"]
    # Each profile promises what it gives.
    assert len({ptc.tool_schema(p)["description"] for p in PROFILES}) == 3


def test_tool_schema_bad_arguments():
    with pytest.raises(ValueError, match="unknown profile 'nope' .*in_process_with_app_tools"):
        ptc.tool_schema("nope")
    with pytest.raises(TypeError, match="profile must be a str"):
        ptc.tool_schema(1)
    with pytest.raises(ValueError, match="form must be 'tool' or 'openai'"):
        ptc.tool_schema(form="mcp")


# ---------------------------------------------------------------- lisp_eval payloads

# Arguments as a model sends them, each answered by `ptc lisp-eval` and the handler.
CALLS = [
    '{"program": "(+ 1 2)"}',
    '{"program": "(count data/xs)", "context": {"xs": [1, 2, 3]}}',
    '{"program": "(println \\"hi\\") (def x 5) {:a [1 2] :b \\"c\\"}"}',
    '{"program": "(+ 1 :a)"}',
    '{"program": "(let [x] x"}',
    '{"program": "(fail {:why \\"no\\"})"}',
    '{"program": "(loop [] (recur))"}',
    '{"program": "(return 7)"}',
    '{"program": ""}',
    '{"program": "   "}',
    '{"program": 42}',
    '{"programme": "(+ 1 2)"}',
    '{"program": "1", "context": [1]}',
    '{"program": "1", "context": {"a/b": 1}}',
    '[1, 2]',
    '{"program": ',
    'not json',
]


@needs_cli
@pytest.mark.parametrize("profile", PROFILES)
def test_handler_payloads_are_the_commands(profile):
    tool = ptc.lisp_eval_tool(profile=profile)
    for arguments in CALLS:
        expected, code = cli("lisp-eval", "--profile", profile, stdin=arguments)
        assert tool.handler(arguments) == expected, arguments
        assert json.loads(expected)["status"] == ("ok" if code == 0 else "error")


@needs_cli
def test_handler_with_memory_and_signature_is_the_commands(tmp_path):
    memory = tmp_path / "memory.json"
    memory.write_text('{"base": 10}')
    arguments = '{"program": "(def total (+ base 5)) {:total total}"}'
    expected, _ = cli("lisp-eval", "--profile", "in_process_with_app_tools", "--include-memory",
                      "--memory", str(memory), "--signature", "{total :int}", stdin=arguments)
    tool = ptc.lisp_eval_tool(include_memory=True, memory={"base": 10}, signature="{total :int}")
    payload = tool.handler(arguments)
    assert payload == expected
    assert json.loads(payload)["validated"] == {"total": 15}
    assert json.loads(payload)["memory"]["changed"] == {"total": "15"}


@needs_cli
def test_handler_with_tools_is_the_commands(tmp_path):
    table = tmp_path / "tools.json"
    table.write_text('{"get-user": [{"args": {"id": 7}, "result": {"name": "Ada"}}]}')
    arguments = '{"program": "(:name (tool/get-user {:id 7}))"}'
    expected, _ = cli("lisp-eval", "--profile", "in_process_text_mode", "--tools", str(table),
                      stdin=arguments)
    tool = ptc.lisp_eval_tool(tools={"get-user": lambda args: {"name": "Ada"}},
                              profile="in_process_text_mode")
    assert tool.handler(arguments) == expected
    assert json.loads(expected)["result"] == 'user=> "Ada"'


def test_handler_takes_a_dict_or_json_text():
    tool = ptc.lisp_eval_tool()
    text = tool.handler('{"program": "(* 6 7)"}')
    assert tool.handler({"program": "(* 6 7)"}) == text
    assert tool.handler(b'{"program": "(* 6 7)"}') == text
    assert tool({"program": "(* 6 7)"}) == text
    assert json.loads(text) == {"feedback": "", "prints": [], "result": "user=> 42",
                                "status": "ok", "truncated": False}
    with pytest.raises(TypeError, match="arguments must be a dict or JSON text"):
        tool.handler(42)


def test_the_tool_describes_itself_as_its_profile():
    tool = ptc.lisp_eval_tool(profile="in_process_text_mode")
    schema = ptc.tool_schema("in_process_text_mode")
    assert (tool.name, tool.description, tool.input_schema) == (
        schema["name"], schema["description"], schema["inputSchema"])
    assert tool.openai_schema == ptc.tool_schema("in_process_text_mode", form="openai")
    assert tool.profile == "in_process_text_mode"


def test_a_tool_that_raises_is_the_programs_tool_error():
    def get_user(args):
        raise LookupError(f"no user {args['id']}")

    tool = ptc.lisp_eval_tool(tools={"get-user": get_user})
    payload = json.loads(tool.handler({"program": "(tool/get-user {:id 7})"}))
    assert payload["status"] == "error"
    assert payload["reason"] == "runtime_error"
    assert payload["message"].startswith("tool_error at 1:1: ")
    assert "no user 7" in payload["message"]
    # A value with no JSON form is the tool's error too.
    tool = ptc.lisp_eval_tool(tools={"get-user": lambda args: object()})
    payload = json.loads(tool.handler({"program": "(tool/get-user {:id 7})"}))
    assert payload["reason"] == "runtime_error" and "no JSON form" in payload["message"]


def test_the_calls_context_replaces_the_tools():
    tool = ptc.lisp_eval_tool(context={"xs": [1, 2]})
    assert json.loads(tool.handler({"program": "(count data/xs)"}))["result"] == "user=> 2"
    replaced = tool.handler({"program": "(count data/xs)", "context": {"xs": [1, 2, 3]}})
    assert json.loads(replaced)["result"] == "user=> 3"
    shared = ptc.lisp_eval_tool(context=ptc.prepare_context({"xs": [1, 2, 3, 4]}))
    assert json.loads(shared.handler({"program": "(count data/xs)"}))["result"] == "user=> 4"
    replaced = shared.handler({"program": "(count data/xs)", "context": {"xs": []}})
    assert json.loads(replaced)["result"] == "user=> 0"


def test_limits_reach_the_calls():
    tool = ptc.lisp_eval_tool(timeout_ms=50, max_heap_bytes=1 << 20)
    payload = json.loads(tool.handler({"program": "(loop [i 0] (recur i))", "context": None}))
    assert payload["reason"] in ("timeout", "runtime_error")  # timeout or loop_limit
    payload = json.loads(tool.handler({"program": "(vec (range 10000000))"}))
    assert payload["reason"] == "memory_limit"


def test_lisp_eval_tool_refuses_what_cannot_work():
    with pytest.raises(ValueError, match="mcp_no_tools profile has no tools"):
        ptc.lisp_eval_tool(tools={"f": lambda a: 1}, profile="mcp_no_tools")
    with pytest.raises(ValueError, match="unknown profile"):
        ptc.lisp_eval_tool(profile="mcp")
    with pytest.raises(TypeError, match="unexpected keyword argument 'timeout'"):
        ptc.lisp_eval_tool(timeout=5)
    with pytest.raises(TypeError, match="takes no defer"):
        ptc.lisp_eval_tool(defer=["f"])
    with pytest.raises(TypeError, match="must be callable"):
        ptc.lisp_eval_tool(tools={"f": 1})
    ptc.lisp_eval_tool(profile="mcp_no_tools")  # without tools: fine


def test_calls_from_threads_at_once():
    tool = ptc.lisp_eval_tool(tools={"double": lambda args: args["n"] * 2})
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        payloads = list(pool.map(
            lambda n: tool.handler({"program": f"(tool/double {{:n {n}}})"}), range(40)))
    assert [json.loads(p)["result"] for p in payloads] == [f"user=> {2 * n}" for n in range(40)]


def test_handler_async_awaits_async_tools_on_the_loop():
    calls = []

    async def get_user(args):
        calls.append(asyncio.get_running_loop())
        await asyncio.sleep(0)
        return {"name": f"user {args['id']}"}

    tool = ptc.lisp_eval_tool(tools={"get-user": get_user})

    async def main():
        program = {"program": "(mapv :name (pmap #(tool/get-user {:id %}) [1 2 3]))"}
        payloads = await asyncio.gather(*(tool.handler_async(program) for _ in range(3)))
        return asyncio.get_running_loop(), payloads

    loop, payloads = asyncio.run(main())
    for payload in payloads:
        assert json.loads(payload)["result"] == 'user=> ["user 1" "user 2" "user 3"]'
    assert calls and all(c is loop for c in calls)
    # The sync handler cannot await: the tool's error says where to go.
    payload = json.loads(tool.handler({"program": "(tool/get-user {:id 1})"}))
    assert "handler_async" in payload["message"]


# ---------------------------------------------------------------- renderers


def test_render_success_is_the_handlers_payload():
    tool = ptc.lisp_eval_tool()
    for program in ['(println "x") {:a 1}', "(def x 1)", "nil", "(range 100)"]:
        assert ptc.render_success(ptc.run(program)) == tool.handler({"program": program})
    with_memory = json.loads(ptc.render_success(ptc.run("(def x 4) x"), include_memory=True))
    assert with_memory["memory"]["changed"] == {"x": "4"}
    typed = json.loads(ptc.render_success(ptc.run("[1 2]"), validated=[1, 2]))
    assert typed["validated"] == [1, 2]
    session = ptc.Session()
    assert json.loads(ptc.render_success(session.eval("(+ 1 1)")))["result"] == "user=> 2"


def test_render_error_of_a_failed_result_is_the_handlers_payload():
    tool = ptc.lisp_eval_tool()
    for program in ["(+ 1 :a)", "(let [x] x", "(fail {:a 1})", "(loop [] (recur))"]:
        assert ptc.render_error(ptc.run(program)) == tool.handler({"program": program})


def test_render_error_of_the_hosts_own():
    assert json.loads(ptc.render_error("timeout", "took too long")) == {
        "feedback": "took too long", "message": "took too long", "reason": "timeout",
        "status": "error"}
    assert json.loads(ptc.render_error("args_error", "bad", feedback="try again"))["feedback"] \
        == "try again"
    fail = json.loads(ptc.render_error("fail", "gave up", result={"why": 1}))
    assert fail["result"] == '{"why" 1}'
    assert json.loads(ptc.render_error("fail", "gave up"))["result"] is None


def test_renderers_refuse_what_does_not_fit():
    ok, failed = ptc.run("1"), ptc.run("(+ 1 :a)")
    with pytest.raises(ValueError, match="the run failed"):
        ptc.render_success(failed)
    with pytest.raises(ValueError, match="the run succeeded"):
        ptc.render_error(ok)
    with pytest.raises(ValueError, match="unknown reason 'oops'"):
        ptc.render_error("oops", "x")
    with pytest.raises(ValueError, match="only an error of reason fail has a result"):
        ptc.render_error("timeout", "x", result="y")
    with pytest.raises(TypeError, match="message is missing"):
        ptc.render_error("timeout")
    with pytest.raises(TypeError, match="must be a ptc.Result"):
        ptc.render_success({"ok": True})
    with pytest.raises(ValueError, match="copied or unpickled"):
        ptc.render_success(copy.copy(ok))
    # A copy keeps every field.
    assert copy.deepcopy(failed).error.reason == "type_error"


# ---------------------------------------------------------------- the C entry points


def _c_call(function, *args):
    out = ctypes.c_void_p()
    status = function(*args, ctypes.byref(out), None)
    if out.value:
        ptc._protocol._p().ptc_protocol_free(out.value)
    return status, ptc._last_error()


def test_c_entry_points_check_their_arguments():
    p = ptc._protocol._p()
    invalid = 2
    assert _c_call(p.ptc_protocol_tool_schema, None, 7) == (
        invalid, "form: 7 is not PTC_PROTOCOL_SCHEMA_TOOL (0) or PTC_PROTOCOL_SCHEMA_OPENAI (1)")
    assert _c_call(p.ptc_protocol_lisp_eval, None, None, None, 0, 0) == (
        invalid, "arguments must not be NULL")
    assert _c_call(p.ptc_protocol_lisp_eval, None, None, b"{}", 2, 4) == (
        invalid, "flags: 4 is not 0 or PTC_PROTOCOL_INCLUDE_MEMORY (1)")
    status = p.ptc_protocol_lisp_eval(None, None, b"{}", 2, 0, None, None)
    assert (status, ptc._last_error()) == (invalid, "payload must not be NULL")
    assert _c_call(p.ptc_protocol_render_success, None, None, 0) == (
        invalid, "result must not be NULL")
    result = ptc.run("1")
    assert _c_call(p.ptc_protocol_render_success, result._handle, b'{"x": 1}', 8) == (
        invalid, "options_json: unknown key 'x' (known: include_memory, validated)")
    assert _c_call(p.ptc_protocol_render_success, result._handle, b"[1]", 3) == (
        invalid, "options_json must be a JSON object, got an array")
    assert _c_call(p.ptc_protocol_render_error, None, b"m", 1, None, 0) == (
        invalid, "reason must not be NULL")
    assert _c_call(p.ptc_protocol_agent_run, None, 0, None, ptc._lib.LLM_FN(), None) == (
        invalid, "agent_json must not be NULL")
    assert _c_call(p.ptc_protocol_agent_run, b"{}", 2, None, ptc._lib.LLM_FN(), None) == (
        invalid, 'llm must not be NULL without a "model"')
    assert _c_call(p.ptc_protocol_agent_describe, b"[]", 2, None) == (
        invalid, "agent_json must be a JSON object, got an array")
    # A success clears the thread's last error.
    assert _c_call(p.ptc_protocol_tool_schema, None, 0) == (0, "")
    # An error payload is a payload, with PTC_PROGRAM_ERROR.
    assert _c_call(p.ptc_protocol_lisp_eval, None, None, b"{}", 2, 0)[0] == 1


# ---------------------------------------------------------------- without libptc_protocol


def test_import_works_without_the_protocol_library(tmp_path):
    missing = tmp_path / "libptc_protocol.so.0"
    code = ("import ptc\n"
            "assert ptc.run('(+ 1 2)').value == 3\n"
            "try:\n"
            "    ptc.tool_schema()\n"
            "except ptc.ProtocolUnavailable as e:\n"
            "    assert isinstance(e, ImportError)\n"
            "    print(e)\n")
    env = dict(os.environ, PTC_PROTOCOL_LIBRARY=str(missing),
               PYTHONPATH=str(pathlib.Path(ptc.__file__).resolve().parents[1]))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "libptc_protocol.so.0, which could not be loaded" in done.stdout
    assert f"{missing} (no such file)" in done.stdout
    assert "PTC_PROTOCOL_LIBRARY" in done.stdout
