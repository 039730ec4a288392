"""Isolated runs: ptc.WorkerPool and the isolate option. A program run in a
worker process gives the Result an in-process run gives; its tools are
called in this process (on threads of their own, several at once for a
pmap); sessions, compiled programs and the lisp_eval tool run isolated too;
executions refuse it; a pool that cannot start raises PtcUnavailable.

The pool finds the ptc-worker beside the loaded libptc.so.0: the build's
(python_tests), or the one the wheel carries in the package folder
(python_wheel_tests)."""

import asyncio
import json
import os
import signal
import threading
import time

import pytest

import ptc


@pytest.fixture(scope="module")
def pool():
    with ptc.WorkerPool(workers=2) as p:
        yield p


def stable(result):
    """A Result's fields but the timings."""
    doc = dict(result._full())
    doc.pop("usage")
    for call in doc["tool_calls"] + doc["pmap_calls"]:
        call.pop("duration_ms")
    return doc


USERS = {7: "Ada", 8: "Bo"}


def get_user(args):
    if args["id"] not in USERS:
        raise ValueError(f"no user {args['id']}")
    return {"name": USERS[args["id"]], "id": args["id"]}


OPTIONS = dict(
    context={"orders": [{"user": 7, "total": 30}, {"user": 8, "total": 12}]},
    memory={"base": 100},
    tools={"get-user": get_user, "echo": ptc.Tool(lambda args: args, cacheable=True)},
)


@pytest.mark.parametrize("program", [
    "(+ 1 2)",
    '{:a [1 2.5 nil] :b #{"x"} "k" :v :big 123456789012345678901234567890}',
    '(println "hi") (prn [1 2]) :done',
    "(def x 10) (defn times-x [n] (* n x base)) (times-x 4)",
    "(do\n  (+ 1 :a))",
    '(fail {:reason "x" :n 1})',
    "(return 5)",
    "(loop [i 0] (recur (inc i)))",
    "(mapv #(:name (tool/get-user {:id (:user %)})) (filter #(> (:total %) 20) data/orders))",
    "(tool/get-user {:id 3})",
    '[(tool/echo {:a 1}) (tool/echo {"a" 1})]',
    "(pmap inc (range 8))",
    "(tool/no-such-tool {})",
])
def test_an_isolated_run_gives_the_in_process_result(pool, program):
    here = ptc.run(program, **OPTIONS)
    there = ptc.run(program, isolate=pool, **OPTIONS)
    assert there.ok == here.ok
    assert stable(there) == stable(here)


def test_tools_are_called_in_this_process_on_threads_of_their_own(pool):
    seen = []
    lock = threading.Lock()

    def slow(args):
        with lock:
            seen.append((os.getpid(), threading.get_ident()))
        time.sleep(0.05)
        return args["i"] * 10

    result = ptc.run("(pmap #(tool/slow {:i %}) (range 6))", isolate=pool, tools={"slow": slow})
    assert result.ok, result.error
    assert result.value == [0, 10, 20, 30, 40, 50]
    assert {pid for pid, _ in seen} == {os.getpid()}
    assert len({thread for _, thread in seen}) >= 2
    assert len(result.tool_calls) == 6


def test_limits_and_signatures_reach_the_worker(pool):
    spin = "(loop [i 0] (if (< i 10000) (do (loop [j 0] (if (< j 10000) (recur (inc j)))) " \
           "(recur (inc i)))))"
    result = ptc.run(spin, isolate=pool, timeout_ms=50, loop_limit=10000)
    assert result.error.reason == "timeout"
    result = ptc.run('{:total "x"}', isolate=pool, signature="{total :int}")
    assert result.error.reason == "validation_error"
    assert ptc.run("{:total 3}", isolate=pool, signature="{total :int}").value == {"total": 3}


def test_isolate_true_is_the_shared_default_pool():
    default = ptc.WorkerPool.default()
    assert ptc.WorkerPool.default() is default
    runs = default.stats["runs"]
    assert ptc.run("(* 6 7)", isolate=True).value == 42
    assert default.stats["runs"] == runs + 1
    # isolate=False (and None) runs in-process.
    assert ptc.run("(* 6 7)", isolate=False).value == 42
    assert default.stats["runs"] == runs + 1


def test_stats(pool):
    ptc.run("1", isolate=pool)
    stats = pool.stats
    assert set(stats) == {"workers", "busy", "started", "runs", "recycled", "died", "killed",
                          "contexts_sent", "contexts_handed_over", "namespaces", "worker_path"}
    assert stats["workers"] == 2 and stats["busy"] == 0
    assert stats["runs"] >= 1 and stats["died"] == 0 and stats["killed"] == 0
    assert os.path.basename(stats["worker_path"]) == "ptc-worker"
    assert os.access(stats["worker_path"], os.X_OK)
    assert pool.worker_path == stats["worker_path"]


def test_workers_are_recycled_after_max_runs():
    with ptc.WorkerPool(workers=1, max_runs=2) as pool:
        for _ in range(5):
            assert ptc.run("(reduce + (range 10))", isolate=pool).value == 45
        assert pool.stats["runs"] == 5
        assert pool.stats["recycled"] == 2


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one CPU: nothing to hand off")
def test_a_run_alone_hands_the_callers_cpu_to_its_worker():
    caller = threading.get_native_id()
    before = os.sched_getaffinity(0)
    seen = []
    look = lambda args: seen.append(os.sched_getaffinity(caller))
    with ptc.WorkerPool(workers=1) as pool:
        assert ptc.run("(tool/look {}) 1", isolate=pool, tools={"look": look}).value == 1
    assert len(seen[0]) == 1  # the caller waits on one CPU, its worker's
    assert os.sched_getaffinity(0) == before  # and may run anywhere again
    with ptc.WorkerPool(workers=1, cpu_handoff=False) as pool:
        assert ptc.run("(tool/look {}) 1", isolate=pool, tools={"look": look}).value == 1
    assert seen[1] == before


def _descendants(pid):
    """The processes below `pid` (from /proc), as {pid: [children]}."""
    tree = {}
    todo = [pid]
    while todo:
        p = todo.pop()
        kids = []
        for task in os.listdir(f"/proc/{p}/task"):
            try:
                with open(f"/proc/{p}/task/{task}/children") as f:
                    kids += [int(k) for k in f.read().split()]
            except FileNotFoundError:
                pass
        tree[p] = kids
        todo += kids
    return tree


def _leaves():
    """The processes below this one with none below them: worker processes
    (a pool's launcher, and a pid namespace's first process, are above
    them)."""
    return {pid for pid, kids in _descendants(os.getpid()).items()
            if pid != os.getpid() and not kids}


def test_a_worker_that_dies_ends_only_its_run_with_internal_error():
    others = _leaves()  # the workers of the other pools
    with ptc.WorkerPool(workers=1) as pool:
        for _ in range(500):
            if pool.stats["workers"] == 1:
                break
            time.sleep(0.01)
        mine = _leaves() - others
        assert len(mine) == 1

        def kill_the_worker(args):
            for pid in mine:
                os.kill(pid, signal.SIGKILL)
            return 1

        result = ptc.run("(tool/kill {}) (+ 1 2)", isolate=pool, tools={"kill": kill_the_worker},
                         memory={"a": 1})
        assert result.error.reason == "internal_error"
        assert "the worker process running this program died" in result.error.message
        assert result.memory == {"a": 1}
        assert pool.stats["died"] == 1
        # Replaced: the next run has a worker.
        assert ptc.run("(+ 1 2)", isolate=pool).value == 3
        assert pool.stats["started"] == 2


def test_sessions_and_compiled_programs_run_isolated(pool):
    with ptc.Session(isolate=pool, memory={"base": 100}, tools={"get-user": get_user}) as s:
        assert s.eval("(defn add-base [n] (+ n base))").ok
        assert s.eval("(add-base 1)").value == 101
        assert s.eval("(* *1 2)").value == 202
        assert s.eval("(:name (tool/get-user {:id 7}))").value == "Ada"
    runs = pool.stats["runs"]
    program = ptc.compile("(* 6 data/n)", isolate=pool)
    assert program.run(context={"n": 7}).value == 42
    assert program.run(context={"n": 7}, isolate=False).value == 42
    assert pool.stats["runs"] == runs + 1


def test_the_options_keep_a_closed_pool_alive():
    pool = ptc.WorkerPool(workers=1)
    session = ptc.Session(isolate=pool)
    pool.close()
    assert session.eval("(+ 1 2)").value == 3
    session.close()
    with pytest.raises(ValueError, match="closed"):
        ptc.run("1", isolate=pool)
    with pytest.raises(ValueError, match="closed"):
        pool.stats


def test_the_lisp_eval_tool_runs_isolated(pool):
    tool = ptc.lisp_eval_tool(tools={"get-user": get_user}, isolate=pool)
    runs = pool.stats["runs"]
    payload = json.loads(tool.handler({"program": "(:name (tool/get-user {:id 7}))"}))
    assert payload["status"] == "ok" and payload["result"] == 'user=> "Ada"'
    assert pool.stats["runs"] == runs + 1


def test_executions_cannot_run_isolated(pool):
    with pytest.raises(TypeError, match="start cannot run isolated"):
        ptc.start("(+ 1 2)", isolate=pool)
    with pytest.raises(TypeError, match="load cannot run isolated"):
        ptc.load(b"x", isolate=True)
    with pytest.raises(TypeError, match="run_async cannot run isolated"):
        asyncio.run(ptc.run_async("(+ 1 2)", isolate=pool))
    program = ptc.compile("(+ 1 2)", isolate=pool)
    with pytest.raises(TypeError, match="isolate=False"):
        ptc.start(program)
    assert ptc.start(program, isolate=False).result.value == 3


def test_a_pool_that_cannot_start_raises_ptc_unavailable():
    with pytest.raises(ptc.PtcUnavailable, match="/nonexistent/ptc-worker could not be started"):
        ptc.WorkerPool(worker_path="/nonexistent/ptc-worker")
    assert issubclass(ptc.PtcUnavailable, OSError)


def test_bad_arguments():
    with pytest.raises(TypeError, match="isolate must be"):
        ptc.run("1", isolate="yes")
    with pytest.raises(TypeError, match="workers must be an int"):
        ptc.WorkerPool(workers="2")
    with pytest.raises(TypeError, match="worker_path"):
        ptc.WorkerPool(worker_path=7)
    with pytest.raises(ValueError, match="must be a whole number"):
        ptc.WorkerPool(workers=-1)


def test_the_agent_runs_its_programs_isolated(pool):
    def llm(request):
        if request["turn"] == 1:
            call = {"id": "1", "type": "function",
                    "function": {"name": "lisp_eval",
                                 "arguments": json.dumps({"program": "(return (* 6 7))"})}}
            return {"content": "", "tool_calls": [call]}
        return "done"

    runs = pool.stats["runs"]
    result = ptc.Agent(llm, isolate=pool).run("compute")
    assert result.ok and result.value == 42
    assert pool.stats["runs"] == runs + 1
