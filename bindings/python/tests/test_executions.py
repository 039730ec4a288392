"""Executions from Python: ptc.start suspends at deferred tools, resume()
answers any of the pending calls, dump()/ptc.load() move a suspended
execution to bytes and back (also into another process), and run_async
answers the calls of a program with asyncio without blocking the loop."""

import asyncio
import json
import os
import pathlib
import subprocess
import sys
import threading
import time

import pytest

import ptc

# Every branch of these tests' pmaps starts at once, whatever the machine's
# default window (2 x cores).
WIDE = {"pmap_max_concurrency": 8}

GREET = ("(defn greet [u] (str greeting \" \" (:name u)))\n"
         "(println data/label)\n"
         "(mapv #(greet (tool/get-user {:id %})) data/ids)")


def greeting_after_first_answer():
    """An execution of GREET that has had the answer to its first call."""
    execution = ptc.start(GREET, defer=["get-user"], context={"ids": [1, 2], "label": "users"},
                          memory={"greeting": "hi"})
    return execution.resume({"c0": {"name": "Ada"}})


def ids(execution):
    return [call.id for call in execution.pending]


# ---------------------------------------------------------------- start and resume


def test_start_suspends_and_resume_finishes():
    execution = ptc.start("(def seen (tool/get-user {:id 7 :opts {:deep-key true}}))\n"
                          "(println \"got\" (:name seen))\n"
                          "(str (:name seen) \"!\")", defer=["get-user"])
    assert not execution.done
    assert execution.pending == [
        ptc.PendingCall("c0", "get-user", {"id": 7, "opts": {"deep-key": True}})]
    call = execution.pending[0]
    assert (call.id, call.tool, call.args["id"]) == ("c0", "get-user", 7)
    with pytest.raises(ValueError, match="suspended"):
        execution.result
    assert execution.heap_bytes > 0
    assert execution.resume({"c0": {"name": "Ada"}}) is execution
    assert execution.done
    assert execution.pending == []
    result = execution.result
    assert isinstance(result, ptc.Result)
    assert result.ok and result.value == "Ada!"
    assert result.prints == ["got Ada"]
    assert result.memory == {"seen": {"name": "Ada"}}
    [ledger] = result.tool_calls
    assert ledger["name"] == "get-user" and ledger["result"] == {"name": "Ada"}


def test_nothing_deferred_is_a_run_and_star_defers_the_rest():
    execution = ptc.start("(+ 1 2)")
    assert execution.done and execution.result.value == 3
    # "*": every tool the program calls that `tools` does not give.
    execution = ptc.start("[(tool/sync {:n 1}) (tool/anything {:x 1})]", defer="*",
                          tools={"sync": lambda args: args["n"] + 1})
    assert execution.pending == [ptc.PendingCall("c1", "anything", {"x": 1})]
    assert execution.resume({"c1": [2, 3]}).result.value == [2, [2, 3]]
    # Without it, an unknown tool fails before the program runs.
    assert ptc.start("(tool/nope {})", defer=["f"]).result.error.reason == "unknown_tool"
    # ptc.run cannot wait for a deferred tool.
    assert ptc.run("(tool/f {})", defer=["f"]).error.reason == "args_error"


def test_start_a_compiled_program():
    program = ptc.compile("(+ (tool/base {}) data/a)", defer=["base"])
    # The options given to compile are the defaults: `defer` carries over.
    execution = ptc.start(program, context={"a": 5})
    assert ids(execution) == ["c0"]
    assert execution.resume({"c0": 100}).result.value == 105
    execution = ptc.start(program, context={"a": 1}, defer=["base"], timeout_ms=500)
    assert execution.resume({"c0": 10}).result.value == 11


def test_pmap_suspends_once_with_every_call_pending_and_takes_partial_answers():
    execution = ptc.start("(pmap #(:name (tool/get-user {:id %})) [1 2 3 4])",
                          defer=["get-user"], **WIDE)
    assert execution.pending == [ptc.PendingCall(f"p0.{i}/c0", "get-user", {"id": i + 1})
                                 for i in range(4)]
    execution.resume({"p0.2/c0": {"name": "c"}, "p0.0/c0": {"name": "a"}})
    assert not execution.done
    assert ids(execution) == ["p0.1/c0", "p0.3/c0"]
    execution.resume({"p0.3/c0": {"name": "d"}})
    assert ids(execution) == ["p0.1/c0"]
    execution.resume({"p0.1/c0": {"name": "b"}})
    assert execution.done
    assert execution.result.value == ["a", "b", "c", "d"]
    assert execution.result.pmap_calls[0]["success_count"] == 4


def test_tool_error_answers_are_tool_errors():
    execution = ptc.start("(do\n  (tool/get-user {:id 3})\n  :never)", defer=["get-user"])
    result = execution.resume({"c0": ptc.ToolError("no user 3")}).result
    assert not result.ok
    assert result.error.reason == "tool_error"
    assert "no user 3" in result.error.message
    assert result.error.line == 2
    assert result.tool_calls[0]["error"] == "no user 3"
    # One failed branch fails the pmap.
    execution = ptc.start("(pmap #(tool/f {:i %}) [1 2])", defer=["f"], **WIDE)
    execution.resume({"p0.1/c0": ptc.ToolError("down")})
    assert execution.done and execution.result.error.reason == "tool_error"


def test_bad_resumes_raise_and_change_nothing():
    execution = ptc.start("(pmap #(tool/f {:i %}) [1 2])", defer=["f"], **WIDE)
    before = execution.pending
    with pytest.raises(ValueError, match='no pending call has the id "c9".*p0.0/c0, p0.1/c0'):
        execution.resume({"c9": 1})
    with pytest.raises(ValueError, match='"nope"'):
        execution.resume({"p0.0/c0": 1, "nope": 2})
    with pytest.raises(ValueError, match="at least one answer"):
        execution.resume({})
    with pytest.raises(TypeError, match="the answer to p0.0/c0: the tool's value has no JSON"):
        execution.resume({"p0.0/c0": {1, 2}})
    with pytest.raises(TypeError, match="must be a dict"):
        execution.resume([("p0.0/c0", 1)])
    with pytest.raises(TypeError, match="call ids must be str"):
        execution.resume({0: 1})
    assert execution.pending == before
    assert not execution.done
    execution.resume({"p0.0/c0": 10})
    with pytest.raises(ValueError, match="call p0.0/c0 was answered before.*p0.1/c0"):
        execution.resume({"p0.0/c0": 10})
    assert ids(execution) == ["p0.1/c0"]
    execution.resume({"p0.1/c0": 20})
    assert execution.result.value == [10, 20]
    # The refused answers left no trace.
    assert [call["result"] for call in execution.result.tool_calls] == [10, 20]
    with pytest.raises(ValueError, match="the execution is done"):
        execution.resume({"p0.1/c0": 20})
    with pytest.raises(ValueError, match="the execution is done"):
        execution.dump()


def test_resume_from_another_thread():
    execution = ptc.start(
        "(loop [i 0 acc []] (if (< i 4) (recur (inc i) (conj acc (tool/f {:i i}))) acc))",
        defer=["f"])
    threads = []
    while not execution.done:
        call = execution.pending[0]
        thread = threading.Thread(target=execution.resume, args=({call.id: call.args["i"] * 3},))
        thread.start()
        thread.join()
        threads.append(thread.ident)
    assert len(threads) == 4
    assert execution.result.value == [0, 3, 6, 9]


def test_threads_resume_and_read_one_execution_at_once():
    # Eight threads answer the eight calls of one pmap while two others read
    # it (pending, heap_bytes, done, dump): calls are taken one at a time,
    # and every read sees a whole state.
    for _ in range(5):
        execution = ptc.start("(pmap #(tool/f {:i %}) (range 8))", defer=["f"], **WIDE)
        problems = []
        answered = threading.Event()

        def read():
            while not answered.is_set():
                try:
                    assert all(call.tool == "f" for call in execution.pending)
                    assert execution.heap_bytes >= 0
                    if not execution.done:
                        execution.dump()
                except ValueError as e:  # done between done and dump
                    if "the execution is done" not in str(e):
                        problems.append(e)
                except Exception as e:
                    problems.append(e)

        def answer(call):
            try:
                execution.resume({call.id: call.args["i"] * 2})
            except Exception as e:
                problems.append(e)

        readers = [threading.Thread(target=read) for _ in range(2)]
        answerers = [threading.Thread(target=answer, args=(call,)) for call in execution.pending]
        for thread in readers + answerers:
            thread.start()
        for thread in answerers:
            thread.join()
        answered.set()
        for thread in readers:
            thread.join()
        assert problems == []
        assert execution.result.value == [i * 2 for i in range(8)]


def test_cancel_and_close():
    execution = ptc.start("(pmap #(tool/f {:i %}) [1 2 3])", defer=["f"], **WIDE)
    execution.cancel()
    assert execution.done and execution.pending == []
    assert execution.result.error.reason == "cancelled"
    execution.cancel()  # done: nothing happens
    assert execution.result.error.reason == "cancelled"
    # Closed (or dropped) while suspended: cancelled and freed.
    with ptc.start("(tool/f {})", defer=["f"]) as suspended:
        assert not suspended.done
    with pytest.raises(ValueError, match="closed"):
        suspended.resume({"c0": 1})
    for _ in range(20):
        ptc.start("(pmap #(tool/f {:i %}) (range 6))", defer=["f"], **WIDE)
    # A cancel token raised while suspended ends it at the next resume.
    token = ptc.CancelToken()
    execution = ptc.start("(tool/f {}) (reduce + (range 100000000))", defer=["f"], cancel=token,
                          timeout_ms=20000)
    token.cancel()
    assert execution.resume({"c0": None}).result.error.reason == "cancelled"


def test_bad_arguments():
    with pytest.raises(TypeError, match="defer must be a list"):
        ptc.start("1", defer=5)
    with pytest.raises(TypeError, match="tool names must be str"):
        ptc.start("1", defer=[5])
    with pytest.raises(ValueError, match="must not be empty"):
        ptc.start("1", defer=[""])
    with pytest.raises(TypeError, match="program must be a str"):
        ptc.start(5)


# ---------------------------------------------------------------- dump and load


def test_dump_and_load_continue_where_it_stood():
    execution = greeting_after_first_answer()
    data = execution.dump()
    assert isinstance(data, bytes) and data
    loaded = ptc.load(data)
    assert loaded.pending == [ptc.PendingCall("c1", "get-user", {"id": 2})]
    loaded.resume({"c1": {"name": "Bob"}})
    # The dump left the original as it was: both end the same way.
    execution.resume({"c1": {"name": "Bob"}})
    assert loaded.result.value == ["hi Ada", "hi Bob"]
    assert loaded.result.prints == ["users"]
    assert [c["result"] for c in loaded.result.tool_calls] == [{"name": "Ada"}, {"name": "Bob"}]
    assert (loaded.result.value, loaded.result.memory) == (execution.result.value,
                                                           execution.result.memory)


def test_load_with_tools_and_limits():
    execution = ptc.start("[(tool/f {:a 1}) (tool/g {:b 2})]", defer="*")
    loaded = ptc.load(execution.dump(), tools={"g": lambda args: args["b"] * 10}, timeout_ms=500)
    assert ids(loaded) == ["c0"]
    assert loaded.resume({"c0": 1}).result.value == [1, 20]
    with pytest.raises(TypeError, match="load takes context from the snapshot"):
        ptc.load(execution.dump(), context={"a": 1})
    with pytest.raises(TypeError, match="data must be bytes"):
        ptc.load("text")


def test_signed_snapshots_and_damaged_bytes():
    execution = greeting_after_first_answer()
    sealed = execution.dump(key="secret")
    plain = execution.dump()
    assert ids(ptc.load(sealed, key=b"secret")) == ["c1"]
    with pytest.raises(ValueError, match="^snapshot_error: "):
        ptc.load(sealed, key="other")
    with pytest.raises(ValueError, match="^snapshot_error: "):
        ptc.load(sealed)
    with pytest.raises(ValueError, match="^snapshot_error: "):
        ptc.load(plain, key="secret")
    with pytest.raises(ValueError, match="^snapshot_error: "):
        ptc.load(plain[: len(plain) // 2])
    with pytest.raises(ValueError, match="not a ptc snapshot"):
        ptc.load(b"not a snapshot at all")
    changed = bytearray(sealed)
    changed[len(changed) // 2] ^= 1
    with pytest.raises(ValueError, match="^snapshot_error: "):
        ptc.load(bytes(changed), key="secret")


# The other process: loads the snapshot file argv[1] (signed with argv[2]),
# answers its pending calls and prints what it waited on and the result.
LOAD_AND_RESUME = """
import json, sys
import ptc
with open(sys.argv[1], "rb") as f:
    execution = ptc.load(f.read(), key=sys.argv[2])
waited = [list(call[:3]) for call in execution.pending]
execution.resume({call.id: {"name": "user-%d" % call.args["id"]} for call in execution.pending})
r = execution.result
print(json.dumps({"waited": waited, "ok": r.ok, "value": r.value, "prints": r.prints,
                  "memory": r.memory, "pid": __import__("os").getpid()}))
"""


def test_dump_in_one_process_and_load_in_another(tmp_path):
    execution = ptc.start(
        "(println \"start\") (def first-user (tool/get-user {:id 1}))\n"
        "(def others (pmap #(tool/get-user {:id %}) [2 3]))\n"
        "(mapv :name (cons first-user others))",
        defer=["get-user"], **WIDE)
    execution.resume({"c0": {"name": "user-1"}})
    assert ids(execution) == ["p0.0/c0", "p0.1/c0"]
    snapshot = tmp_path / "execution.bin"
    snapshot.write_bytes(execution.dump(key="k3y"))
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(ptc.__file__).resolve().parents[1]))
    done = subprocess.run([sys.executable, "-c", LOAD_AND_RESUME, str(snapshot), "k3y"],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    other = json.loads(done.stdout)
    assert other["pid"] != os.getpid()
    assert other["waited"] == [["p0.0/c0", "get-user", {"id": 2}],
                               ["p0.1/c0", "get-user", {"id": 3}]]
    assert other["ok"] and other["value"] == ["user-1", "user-2", "user-3"]
    assert other["prints"] == ["start"]
    # The same as this process continuing it.
    execution.resume({"p0.0/c0": {"name": "user-2"}, "p0.1/c0": {"name": "user-3"}})
    mine = execution.result
    assert (other["value"], other["prints"], other["memory"]) == (mine.value, mine.prints,
                                                                  mine.memory)


# ---------------------------------------------------------------- run_async


def comparable(result, parallel):
    """A Result's fields without the timings. Parallel branches record their
    calls in the order they end, which in ptc.run depends on scheduling: with
    `parallel`, the ledger is compared as a set; and when a parallel program
    fails, which siblings had started (called tools, counted in pmap_calls)
    before they were stopped depends on timing too, so only the outcome is
    compared."""
    doc = {name: getattr(result, name) for name in ptc.Result._fields if name != "usage"}
    untimed = [{k: v for k, v in c.items() if k != "duration_ms"} for c in result.tool_calls]
    doc["tool_calls"] = sorted(untimed, key=json.dumps) if parallel else untimed
    doc["pmap_calls"] = [{k: v for k, v in c.items() if k != "duration_ms"}
                         for c in result.pmap_calls]
    if result.error is not None:
        doc["error"] = {name: getattr(result.error, name) for name in ptc.Error.__slots__}
    if parallel and not result.ok:
        del doc["tool_calls"], doc["pmap_calls"]
    return doc


def test_run_async_answers_pmap_calls_concurrently():
    spans = {}

    async def get_user(args):
        begun = time.monotonic()
        await asyncio.sleep(0.2)
        spans[args["id"]] = (begun, time.monotonic())
        return {"name": f"user-{args['id']}"}

    result = asyncio.run(ptc.run_async("(pmap #(:name (tool/get-user {:id %})) (range 5))",
                                       tools={"get-user": get_user}, **WIDE))
    assert result.ok, result.error
    assert result.value == [f"user-{i}" for i in range(5)]
    assert sorted(spans) == [0, 1, 2, 3, 4]
    # Every call began before any ended: all five were in flight together.
    assert max(begun for begun, _ in spans.values()) < min(ended for _, ended in spans.values())


def test_run_async_with_sync_tools_and_errors():
    def double(args):
        return args["n"] * 2

    def broken(args):
        raise KeyError("no such thing")

    async def refuses(args):
        raise ptc.ToolError("refused")

    result = asyncio.run(ptc.run_async("[(tool/double {:n 4}) (tool/double {:n 5})]",
                                       tools={"double": double}))
    assert result.value == [8, 10]
    assert len(result.tool_calls) == 2
    result = asyncio.run(ptc.run_async("(tool/broken {})", tools={"broken": broken}))
    assert result.error.reason == "tool_error" and "no such thing" in result.error.message
    result = asyncio.run(ptc.run_async("(tool/refuses {})", tools={"refuses": refuses}))
    assert result.tool_calls[0]["error"] == "refused"
    result = asyncio.run(ptc.run_async("(tool/t {})", tools={"t": lambda args: {1, 2}}))
    assert "no JSON form" in result.error.message


def test_run_async_cacheable_tools_are_answered_once():
    calls = []

    async def echo(args):
        calls.append(args)
        return args

    result = asyncio.run(ptc.run_async("[(tool/echo {:a 1}) (tool/echo {:a 1})]",
                                       tools={"echo": ptc.Tool(echo, cacheable=True)}))
    assert result.value == [{"a": 1}, {"a": 1}]
    assert calls == [{"a": 1}]
    assert result.tool_calls[1]["cached"]


SPIN = ("(loop [i 0] (if (< i 10000) (do (loop [j 0] (if (< j 10000) (recur (inc j)))) "
        "(recur (inc i)))))")


def test_run_async_does_not_block_the_event_loop():
    async def main():
        ticks = 0
        stop = asyncio.Event()

        async def ticker():
            nonlocal ticks
            while not stop.is_set():
                await asyncio.sleep(0.005)
                ticks += 1

        at_tool = None

        async def get(args):
            nonlocal at_tool
            at_tool = ticks
            return 1

        task = asyncio.create_task(ticker())
        # After its tool answers, the program computes until its 300 ms
        # timeout: the loop keeps ticking meanwhile.
        result = await ptc.run_async(f"(tool/get {{}}) {SPIN}", tools={"get": get},
                                     timeout_ms=300, loop_limit=10000)
        during = ticks - at_tool
        stop.set()
        await task
        return result, during

    result, during = asyncio.run(main())
    assert result.error.reason == "timeout"
    assert result.usage["duration_ms"] >= 250
    assert during >= 10, f"the loop ticked {during} times while the program computed"


PROGRAMS = [
    "(def users (pmap #(tool/get-user {:id %}) [1 2 3]))\n"
    "(println \"n\" (count users))\n"
    "{:names (mapv :name users) :total (tool/total {:ids (mapv :id users)})}",
    "(doseq [i (range 3)] (println (:name (tool/get-user {:id i})))) (tool/total {:ids [1 2]})",
    "(let [u (tool/get-user {:id 0})] u)",
    "(pmap #(tool/get-user {:id %}) [4 0 5])",
    "(fail (tool/total {:ids [7]}))",
]


@pytest.mark.parametrize("program", PROGRAMS)
def test_run_async_gives_what_run_gives(program):
    def get_user(args):
        if args["id"] == 0:
            raise LookupError("no user 0")
        return {"id": args["id"], "name": f"user-{args['id']}"}

    def total(args):
        return sum(args["ids"])

    async def get_user_async(args):
        await asyncio.sleep(0.001)
        return get_user(args)

    parallel = "pmap" in program
    tools = {"get-user": get_user, "total": total}
    expected = comparable(ptc.run(program, tools=tools, memory={"m": 1}, **WIDE), parallel)
    got = asyncio.run(ptc.run_async(program, tools=tools, memory={"m": 1}, **WIDE))
    assert comparable(got, parallel) == expected
    got = asyncio.run(ptc.run_async(program, tools={"get-user": get_user_async, "total": total},
                                    memory={"m": 1}, **WIDE))
    assert comparable(got, parallel) == expected


def test_run_async_cancelled_cancels_the_program():
    started = None

    async def main():
        nonlocal started
        started = asyncio.Event()

        async def hang(args):
            started.set()
            await asyncio.sleep(60)

        task = asyncio.create_task(ptc.run_async("(tool/hang {})", tools={"hang": hang}))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert started.is_set()
