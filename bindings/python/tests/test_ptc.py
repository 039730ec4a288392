"""The Python module over the C API: values of every type, prints, memory,
errors with line:column, tools (exceptions become tool errors), limits,
sessions, compiled programs, prepared contexts, cancellation, bad arguments,
and threads running programs at once."""

import os
import pathlib
import re
import shutil
import subprocess
import sys
import threading
import time

import pytest

import ptc


# ---------------------------------------------------------------- values


def test_version():
    assert re.fullmatch(r"\d+\.\d+\.\d+", ptc.__version__)


@pytest.mark.parametrize("program, value", [
    ("nil", None),
    ("true", True),
    ("false", False),
    ("42", 42),
    ("-7", -7),
    ("(* 99999999999 99999999999 99999999999)", 999999999970000000000299999999999),
    ("2.5", 2.5),
    ("(* 1.0 4)", 4.0),
    ('"h\\u00e9"', "h\u00e9"),
    (":total", "total"),
    ("[1 [2 3] []]", [1, [2, 3], []]),
    ("(list 1 2)", [1, 2]),
    ("#{7}", [7]),
    ('{:a 1 "b" {:c [nil]}}', {"a": 1, "b": {"c": [None]}}),
    ("{1 :x}", {"1": "x"}),
    ("(fn [x] x)", "#fn[x]"),
    ("(/ 1.0 0.0)", "##Inf"),
])
def test_values_of_every_type(program, value):
    result = ptc.run(program)
    assert result.ok, result.error
    assert result.value == value
    assert type(result.value) is type(value)
    assert result.error is None


def test_printed_is_clojure_syntax():
    result = ptc.run('{:a [1 2.5 "x" nil]}')
    assert result.printed == '{:a [1 2.5 "x" nil]}'
    assert ptc.run("[1 2 3 4]", display_limit=2).printed == "[1 2 ...] (2/4)"


def test_context_from_python_data():
    result = ptc.run("[(count data/users) (:name (first data/users)) data/ratio]",
                     context={"users": [{"name": "Ada"}, {"name": "Bo"}], "ratio": 0.5})
    assert result.value == [2, "Ada", 0.5]


def test_context_as_json_text_and_prepared():
    assert ptc.run("(reduce + data/xs)", context='{"xs": [1, 2, 3]}').value == 6
    prepared = ptc.prepare_context({"xs": list(range(101))})
    assert prepared.bytes > 0
    assert ptc.run("(reduce + data/xs)", context=prepared).value == 5050


def test_prints():
    result = ptc.run('(println "hi") (println "n =" 2) (prn :k) 5')
    assert result.prints == ["hi", "n = 2", ":k"]
    assert result.value == 5


def test_memory_round_trip():
    first = ptc.run('(def x 41) (def names ["a" :b]) x')
    assert first.memory == {"x": 41, "names": ["a", "b"]}
    second = ptc.run("(def y (inc x)) [y (count names)]", memory=first.memory)
    assert second.value == [42, 2]
    assert second.memory == {"x": 41, "names": ["a", "b"], "y": 42}
    failed = ptc.run('(def z 1) (+ 1 "a")', memory=second.memory)
    assert not failed.ok
    assert failed.memory == second.memory


def test_history_signature_precision_and_return():
    assert ptc.run("[*1 *2 *3]", history=[1, 2]).value == [2, 1, None]
    assert ptc.run("(/ 1.0 3)", float_precision=2).value == 0.33
    bad = ptc.run("[1]", signature="[:string]")
    assert bad.error.reason == "validation_error"
    assert ptc.run('["a"]', signature="[:string]").value == ["a"]
    returned = ptc.run("(return 5) 6")
    assert returned.value == 5 and returned.returned


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize("program, reason, line, column", [
    ("(+ 1", "parse_error", 1, 1),
    ('(let [a 1]\n  (+ a "x"))', "type_error", 2, 3),
    ("\n\n   foo", "unbound_var", 3, 4),
    ("(/ 1 0)", "arithmetic_error", 1, 1),
    ("(tool/nope {})", "unknown_tool", 1, 1),
    ("(loop [i 0] (if (< i 5000) (recur (inc i)) i))", "loop_limit_exceeded", 1, 28),
])
def test_errors_with_line_and_column(program, reason, line, column):
    result = ptc.run(program)
    assert not result.ok
    assert result.value is None
    assert result.error.reason == reason
    assert (result.error.line, result.error.column) == (line, column)
    assert result.error.text.startswith(f"{reason} at {line}:{column}: ")
    assert result.error.message in result.error.text


def test_error_hint_and_fail_value():
    error = ptc.run('(+ 1 "x")').error
    assert "parse-long" in error.hint
    failed = ptc.run('(fail {:reason "done" :n 1})')
    assert failed.error.reason == "fail"
    assert failed.error.fail_value == {"reason": "done", "n": 1}
    assert ptc.run("(+ 1 2)").error is None


# ---------------------------------------------------------------- tools


def test_tools():
    seen = []

    def get_user(args):
        seen.append(args)
        return {"name": "Ada", "id": args["id"], "tags": ["x"]}

    result = ptc.run("(:name (tool/get-user {:id 7 :opts {:deep :kw}}))",
                     tools={"get-user": get_user})
    assert result.value == "Ada"
    assert seen == [{"id": 7, "opts": {"deep": "kw"}}]
    [call] = result.tool_calls
    assert call["name"] == "get-user"
    assert call["args"] == {"id": 7, "opts": {"deep": "kw"}}
    assert call["result"] == {"name": "Ada", "id": 7, "tags": ["x"]}
    assert call["error"] is None


def test_tool_exception_becomes_tool_error():
    def broken(args):
        raise KeyError("no user with id 3")

    result = ptc.run("(do\n  (tool/get-user {:id 3}))", tools={"get-user": broken})
    assert not result.ok
    assert result.error.reason == "tool_error"
    assert "no user with id 3" in result.error.message
    assert result.error.line == 2
    assert "no user with id 3" in result.tool_calls[0]["error"]


def test_tool_value_without_json_form_is_a_tool_error():
    result = ptc.run("(tool/t {})", tools={"t": lambda args: {1, 2}})
    assert result.error.reason == "tool_error"
    assert "no JSON form" in result.error.message


def test_cacheable_tool():
    calls = []

    def echo(args):
        calls.append(args)
        return args

    result = ptc.run("[(tool/echo {:a 1}) (tool/echo {:a 1})]",
                     tools={"echo": ptc.Tool(echo, cacheable=True)})
    assert result.value == [{"a": 1}, {"a": 1}]
    assert len(calls) == 1


def test_tools_called_from_pmap_threads():
    threads = set()
    lock = threading.Lock()

    def slow(args):
        with lock:
            threads.add(threading.get_ident())
        time.sleep(0.02)
        return args["i"] * 10

    result = ptc.run("(pmap #(tool/slow {:i %}) (range 8))", tools={"slow": slow})
    assert result.value == [0, 10, 20, 30, 40, 50, 60, 70]
    assert len(threads) >= 2
    assert result.pmap_calls[0]["count"] == 8


# ---------------------------------------------------------------- limits


SPIN = ("(loop [i 0] (if (< i 10000) (do (loop [j 0] (if (< j 10000) (recur (inc j)))) "
        "(recur (inc i)))))")


def test_timeout():
    start = time.monotonic()
    result = ptc.run(SPIN, timeout_ms=100, loop_limit=10000)
    assert result.error.reason == "timeout"
    assert time.monotonic() - start < 3


def test_other_limits():
    assert ptc.run("(count (vec (range 1000000)))",
                   max_heap_bytes=200000).error.reason == "memory_limit"
    assert ptc.run("(loop [i 0] (if (< i 5000) (recur (inc i)) i))", loop_limit=10000).value == 5000
    result = ptc.run("(tool/t {}) (tool/t {})", tools={"t": lambda a: 1}, max_tool_calls=1)
    assert result.error.reason == "tool_call_limit_exceeded"
    assert ptc.run("(tool/t {}) (tool/t {})", tools={"t": lambda a: 1},
                   max_tool_calls=None).value == 1


def test_cancel_from_another_thread():
    token = ptc.CancelToken()
    timer = threading.Timer(0.05, token.cancel)
    timer.start()
    result = ptc.run(SPIN, timeout_ms=20000, loop_limit=10000, cancel=token)
    timer.join()
    assert result.error.reason == "cancelled"
    assert token.cancelled


# ---------------------------------------------------------------- sessions and shared handles


def test_session():
    with ptc.Session(memory={"base": 100}) as session:
        assert session.eval("(def x 1)").ok
        assert session.eval("(defn add-base [n] (+ n base))").ok
        assert session.eval("(add-base x)").value == 101
        assert session.eval("(* *1 10)").value == 1010
        assert session.eval('(def z 1) (+ 1 "a")').error.reason == "type_error"
        assert session.eval("[*1 *2]").value == [1010, 101]
        memory = session.memory
        assert memory["x"] == 1 and memory["base"] == 100 and "z" not in memory
        assert memory["add-base"].startswith("#fn[")
        session.reset()
        assert session.memory == {}
        assert session.eval("x").error.reason == "unbound_var"


def test_session_keeps_its_tools():
    session = ptc.Session(tools={"twice": lambda args: args["n"] * 2})
    assert session.eval("(tool/twice {:n 4})").value == 8
    assert session.eval("(tool/twice {:n *1})").value == 16


def test_compiled_program():
    program = ptc.compile("(+ (tool/base {}) data/a)", tools={"base": lambda args: 100})
    assert [program.run(context={"a": a}).value for a in range(3)] == [100, 101, 102]
    with pytest.raises(ptc.CompileError) as caught:
        ptc.compile("(let [x 1]\n  (foo x))")
    assert caught.value.error.reason == "unbound_var"
    assert (caught.value.error.line, caught.value.error.column) == (2, 4)


# ---------------------------------------------------------------- bad arguments


def test_bad_arguments_raise():
    with pytest.raises(TypeError, match="program must be a str"):
        ptc.run(42)
    with pytest.raises(TypeError, match="context must be a dict"):
        ptc.run("1", context=[1, 2])
    with pytest.raises(ValueError, match="context must be a JSON object"):
        ptc.run("1", context="[1, 2]")
    with pytest.raises(ValueError, match="line 1, column 7"):
        ptc.run("1", context='{"a": }')
    with pytest.raises(TypeError, match="not JSON-able"):
        ptc.run("1", context={"a": object()})
    with pytest.raises(ValueError, match="not JSON-able"):
        ptc.run("1", memory={"a": float("nan")})
    with pytest.raises(TypeError, match="unexpected keyword argument 'max_heap'"):
        ptc.run("1", max_heap=5)
    with pytest.raises(ValueError, match="timeout_ms"):
        ptc.run("1", timeout_ms=-1)
    with pytest.raises(TypeError, match="timeout_ms must be an int"):
        ptc.run("1", timeout_ms="fast")
    with pytest.raises(TypeError, match="must be callable"):
        ptc.run("1", tools={"t": 5})
    with pytest.raises(ValueError, match="float precision"):
        ptc.run("1", float_precision=40)
    with pytest.raises(ValueError):
        ptc.prepare_context("[1]")


# ---------------------------------------------------------------- threads


def test_eight_threads_run_at_once_with_tools():
    def lookup(args):
        time.sleep(0.001)
        return {"square": args["n"] * args["n"]}

    failures = []
    results = {}

    def worker(t):
        for i in range(25):
            n = t * 100 + i
            result = ptc.run("(let [r (tool/lookup {:n data/n})] (println data/n) [data/n (:square r)])",
                             context={"n": n}, tools={"lookup": lookup})
            if not result.ok or result.value != [n, n * n] or result.prints != [str(n)]:
                failures.append((n, result))
            results[n] = result.value

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert len(results) == 200


# ---------------------------------------------------------------- loading the library


def _import_in(python_path, library, code="print(ptc.run('(+ 1 2)').value)"):
    """Imports ptc in a fresh interpreter from `python_path`, with
    PTC_LIBRARY set to `library` (unset when None), and runs `code`."""
    env = {k: v for k, v in os.environ.items() if k != "PTC_LIBRARY"}
    if library is not None:
        env["PTC_LIBRARY"] = library
    return subprocess.run([sys.executable, "-c", "import ptc; " + code],
                          cwd=python_path, env=env, capture_output=True, text=True)


def _copy_package(destination):
    """A copy of the imported package's modules without the library an
    installed wheel has in its folder: each test lays that out itself."""
    shutil.copytree(pathlib.Path(ptc.__file__).parent, destination,
                    ignore=shutil.ignore_patterns("libptc.so*", "__pycache__"))


def _loaded_library():
    """The file of the library this process loaded (PTC_LIBRARY's, or the
    installed wheel's), to lay out as if installed elsewhere."""
    name = ptc._c._name
    if os.sep not in name:
        pytest.skip(f"the library was found by the system loader ({name}), not as a file")
    return os.path.realpath(name)


def test_library_missing_is_a_clear_import_error(tmp_path):
    _copy_package(tmp_path / "ptc")
    done = _import_in(tmp_path, str(tmp_path / "nowhere" / "libptc.so.0"))
    assert done.returncode != 0
    assert "ImportError: ptc: cannot load the ptc-lisp library; tried " in done.stderr
    assert "nowhere/libptc.so.0 (no such file)" in done.stderr


def test_import_error_names_every_place_tried(tmp_path):
    packages = tmp_path.resolve() / "lib" / "python3" / "dist-packages"
    _copy_package(packages / "ptc")
    done = _import_in(packages, None)
    if done.returncode == 0:
        pytest.skip("the system loader finds a libptc.so.0 of its own")
    tried = done.stderr[done.stderr.index("tried "):]
    places = [str(packages / "ptc" / "libptc.so.0") + " (no such file)",
              str(tmp_path.resolve() / "lib" / "libptc.so.0") + " (no such file)",
              "; libptc.so.0 ("]
    assert all(place in tried for place in places), tried
    assert [tried.index(place) for place in places] == sorted(tried.index(p) for p in places)


def test_ptc_library_wins_over_the_package_folder(tmp_path):
    _copy_package(tmp_path / "ptc")
    os.symlink(_loaded_library(), tmp_path / "ptc" / "libptc.so.0")
    done = _import_in(tmp_path, str(tmp_path / "nowhere" / "libptc.so.0"))
    assert done.returncode != 0
    assert "nowhere/libptc.so.0 (no such file)." in done.stderr


def test_library_found_in_the_package_folder_first(tmp_path):
    # The layout of an installed wheel, with another library where a prefix
    # install would put one: the package's own is loaded.
    library = _loaded_library()
    packages = tmp_path / "lib" / "python3" / "dist-packages"
    _copy_package(packages / "ptc")
    os.symlink(library, packages / "ptc" / "libptc.so.0")
    os.symlink(library, tmp_path / "lib" / "libptc.so.0")
    done = _import_in(packages, None, "print(ptc.run('(+ 1 2)').value, ptc._c._name)")
    assert done.returncode == 0, done.stderr
    value, loaded = done.stdout.split()
    assert value == "3"
    assert pathlib.Path(loaded) == (packages / "ptc").resolve() / "libptc.so.0"


@pytest.mark.parametrize("libdir", ["lib", "lib/x86_64-linux-gnu"])
def test_library_found_beside_the_installed_package(tmp_path, libdir):
    library = _loaded_library()
    packages = tmp_path / "lib" / "python3" / "dist-packages"
    _copy_package(packages / "ptc")
    (tmp_path / libdir).mkdir(parents=True, exist_ok=True)
    os.symlink(library, tmp_path / libdir / "libptc.so.0")
    done = _import_in(packages, None)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "3"


def test_runs_with_the_same_plain_options_share_them():
    # Options of limits and plain values are made once and kept; every run
    # still gets them, a wrong one still raises each time, and options with
    # more than plain values (a history, a context) are made per run.
    for _ in range(3):
        assert ptc.run("(loop [i 0] (recur (inc i)))", loop_limit=10).error.reason \
            == "loop_limit_exceeded"
        assert ptc.run("[1]", signature="[:int]").value == [1]
        assert ptc.run("1", signature=":string").error.reason == "validation_error"
        assert ptc.run("*1", signature=":int", history=[5]).value == 5
        assert ptc.run("data/x", signature=":int", context={"x": 2}).value == 2
        with pytest.raises(ValueError, match="timeout_ms must be between"):
            ptc.run("1", timeout_ms=-1)
        with pytest.raises(TypeError, match="timeout_ms must be an int, got bool"):
            ptc.run("1", timeout_ms=True)
    for i in range(100):  # past what is kept: made per run
        assert ptc.run("(+ 1 1)", timeout_ms=1000 + i).value == 2


def test_a_result_converts_on_demand_and_copies_whole():
    import copy
    import pickle
    result = ptc.run('(println "hi") (def x 1) {:a [1 2]}')
    assert result.ok and result.value == {"a": [1, 2]}
    assert result.value is result.value  # converted once
    assert (result.prints, result.memory, result.printed) == (["hi"], {"x": 1}, "{:a [1 2]}")
    for other in (copy.copy(result), copy.deepcopy(result), pickle.loads(pickle.dumps(result))):
        assert [getattr(other, f) for f in ptc.Result._fields if f != "error"] == \
            [getattr(result, f) for f in ptc.Result._fields if f != "error"]
    failed = pickle.loads(pickle.dumps(ptc.run("(+ 1 :a)")))
    assert not failed.ok and failed.error.reason == "type_error" and failed.value is None


def test_usage_reports_the_collected_heap():
    # The cap bounds what is live: this allocates far more than 1 MB and keeps little.
    result = ptc.run("(reduce (fn [acc i] (+ acc (count (vec (range 200))))) 0 (range 2000))",
                     max_heap_bytes=1 << 20)
    assert result.ok and result.value == 400000
    usage = result.usage
    assert usage["allocated_bytes"] > 1 << 20
    assert usage["collections"] >= 1 and usage["collect_ms"] > 0
    assert 0 < usage["peak_live_bytes"] < 1 << 20
    kept = ptc.run("(count (reduce (fn [acc i] (conj acc (vec (range 200)))) [] (range 2000)))",
                   max_heap_bytes=1 << 20)
    assert not kept.ok and kept.error.reason == "memory_limit"
    assert "still reachable after a collection" in kept.error.message
