#!/usr/bin/env python3
"""Seed corpora of the fuzz targets (run by scripts/fuzz reseed).

  make_seeds.py OUT                      writes candidates into OUT/<target>/
  make_seeds.py select CONTROL CAP DEST  copies at most CAP of the inputs a
                                         libFuzzer merge control file lists into
                                         DEST, those adding the most coverage

Programs come from spec/cases/*.jsonl, bench/programs.jsonl and examples/;
JSON documents from the contexts there and a few edge cases; signatures and
memory maps from the lists below; the MCP targets' JSON-RPC conversations,
HTTP requests and output schemas are built below from the frames of
tests/mcp/*.cpp and tests/mcp/node/*.mjs; model providers' replies are
listed below too.
"""
import hashlib
import json
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_BYTES = 4096


def jsonl(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def programs():
    out = []
    for name in ("spec_examples", "clojure_equivalence", "ptc_assertions"):
        out += [r["program"] for r in jsonl(f"spec/cases/{name}.jsonl") if r.get("program")]
    out += [r["program"] for r in jsonl("bench/programs.jsonl")]
    with open(os.path.join(ROOT, "examples/revenue.clj"), encoding="utf-8") as f:
        out.append(f.read())
    # The fuzz_run target's tools, context and first-line options.
    out += [
        '(tool/echo {:a 1 :b [1 2] :c "x"})',
        "(tool/lookup {:id 2})",
        "(tool/lookup {:id 3})",
        "(pmap #(tool/lookup {:id %}) [2 4 6])",
        "(pcalls #(tool/echo {:x 1}) #(+ 1 2))",
        "(->> data/orders (filter #(= (:status %) \"paid\")) (map :total) (reduce +))",
        "(get-in data/user [:roles 0])",
        "[*1 *2 (budget/remaining) data/n data/text data/big]",
        ";sig {count :int, names [:string]}\n{:count 2 :names [\"a\" \"b\"]}",
        ";sig (x :int) -> [:float]\n[1 2.5]",
        ";prec 2\n[3.14159 {:x 2.71828}]",
        '(defn f [x] (* x 2)) (def y (f 21)) (println "y" y) y',
    ]
    return out


def json_docs():
    docs = [r["context"] for r in jsonl("bench/programs.jsonl") if r.get("context")]
    docs += [r["context"] for r in jsonl("spec/cases/spec_examples.jsonl") if r.get("context")]
    out = [json.dumps(d) for d in docs]
    with open(os.path.join(ROOT, "examples/orders.json"), encoding="utf-8") as f:
        out.append(f.read())
    out += [
        "null", "true", "false", "0", "-0", "-0.0", "1.5e300", "1e999", "-1e-999",
        "12345678901234567890123", "-9223372036854775808", "9223372036854775808",
        '"\\u00e9\\ud83d\\ude00\\n\\t\\"\\\\\\/"', '"h\u00e9llo"', "[]", "{}",
        '{"a": 1, "a": 2, "b": [1, {"c": null}]}', "[[[[[[[[[[]]]]]]]]]]",
        '\ufeff{"bom": true}', ' [1 , 2 ,3 ] ', '{"k": 0.1, "l": 1E+2, "m": 5e-324}',
    ]
    return out


SIGNATURES = [
    ":int", ":string?", ":any", ":map", ":keyword", ":datetime", ":bool", ":boolean",
    "[:int]", "[{id :int, name :string}]", "{id :int, email :string?}", "{}",
    "() -> {name :string, price :float}", "(a :int, b [:string]) -> {total :float}",
    "(email :string?) -> :string", "(query :string, limit :int) -> {count :int, items [{id :int}]}",
    "(user {id :int, name :string}, limit :int) -> [{order_id :int}]",
    "(user_id :int) -> {name :string, orders [:map]}",
    "(query :string, options {limit :int?, sort :string?}) ->\n  {results [:any]}",
    "(at :datetime) -> :any", "(flag :bool, k :keyword) -> :any", "(x :float) -> [[:float]]",
]

VALUES = [
    '{"name": "x", "price": 9.5}', '{"a": 1, "b": ["x", "y"], "total": 3}', "[1, 2, 3]",
    '[{"id": 1, "name": "a"}, {"id": "2", "name": ":b"}]', '{"id": 7, "email": null}',
    '{"query": "q", "limit": "10", "count": 1, "items": [{"id": 1}]}',
    '{"at": "2026-05-03T11:14:00+02:00"}', '{"flag": "true", "k": ":pending", "x": 42}',
    '{"user_id": "9", "user-id": 9, "name": "n", "orders": [{}]}', '"2024-02-29T00:00:00Z"',
    "null", "1.5", '":kw"',
]


def signature_inputs():
    out = list(SIGNATURES)
    for i, sig in enumerate(SIGNATURES):
        if "\n" not in sig:
            out.append(sig + "\n" + VALUES[i % len(VALUES)])
    return out


def memory_inputs():
    fns = [
        ("(fn [n] (fn add-n [x] (+ x n)))", [5]),
        ("(fn [] (fn sq [x] (* x x)))", []),
        ("(fn [c0 c1] (clojure.core/partial c0 c1))", [{"$ref": 0}, 1]),
        ("(fn [c0] (re-pattern c0))", ["a+b"]),
        ("(fn [] clojure.core/inc)", []),
        ("(fn [] 'sym)", []),
        ("(fn [v] (fn [] v))", [[1, ":k", {"a": [2]}]]),
    ]
    out = []
    for i, (factory, args) in enumerate(fns):
        out.append({"f": {"$fn": factory, "$args": args}, "n": i, "$call": {"f": [i]}})
    out.append({"a": 1, "b": [1, 2, ":x"], "c": {"k": "v"}, "d": None, "big": 10 ** 30})
    out.append({"f": {"$fn": fns[0][0], "$args": [2]}, "g": {"$ref": 0},
                "h": {"$fn": "(fn [c0] (fn [x] (c0 (c0 x))))", "$args": [{"$ref": 0}]},
                "$call": {"h": [1], "g": [3]}})
    out.append({"lost": {"$opaque": "#fn[lost]"}, "x": 1})
    out.append({"broken": {"$fn": "(fn [] (fn [x] x)"}, "ok": 2})
    out.append({"counter": {"$fn": "(fn [] (fn counter [] (range 10)))"}, "$call": {"counter": []}})
    return [json.dumps(m) for m in out]


# ---------------------------------------------------------------- MCP

def rpc(method, params=None, id=None, notification=False):
    m = {"jsonrpc": "2.0"}
    if not notification:
        m["id"] = id
    m["method"] = method
    if params is not None:
        m["params"] = params
    return json.dumps(m, separators=(",", ":"))


def tool_call(id, name, arguments):
    return rpc("tools/call", {"name": name, "arguments": arguments}, id)


ORDERS = {"orders": [{"id": 1, "total": 9.5, "status": "paid"},
                     {"id": 2, "total": 120, "status": "open", "items": [1, 2]}],
          "user": {"name": "Ada", "roles": ["admin"]}}
SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"},
                                           "names": {"type": "array", "items": {"type": "string"}}},
          "required": ["n"]}

# Revision 2026-07-28's per-request envelope.
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "seed", "version": "1"}}


def modern(method, params=None, id=None, meta=None):
    return rpc(method, {**(params or {}), "_meta": META if meta is None else meta}, id)


# The envelope of a client that declares the tasks extension.
TASKS_META = {**META, "io.modelcontextprotocol/clientCapabilities":
              {"extensions": {"io.modelcontextprotocol/tasks": {}}}}


# Conversations of the jsonrpc target, one frame per line ($SID: the session
# the conversation started).
CONVERSATIONS = [
    [rpc("ping", id=1), rpc("tools/list", id=2), rpc("completion/complete", {}, 3)],
    [rpc("initialize", {"protocolVersion": "2025-03-26", "capabilities": {}}, 1),
     rpc("notifications/initialized", notification=True)],
    [tool_call(1, "lisp_eval", {"program": "(+ 1 2)"})],
    [tool_call(2, "lisp_eval", {"program": '(println "to stdout?") 1'})],
    [tool_call(3, "lisp_eval", {"program": "(->> data/orders (filter #(= (:status %) \"paid\")) "
                                           "(map :total) (reduce +))", "context": ORDERS})],
    [tool_call(4, "lisp_eval", {"program": "{:n (count data/orders) :names [(:name data/user)]}",
                                "context": ORDERS, "output_schema": SCHEMA})],
    [tool_call(5, "lisp_eval", {"program": "{:n \"x\"}", "output_schema": SCHEMA})],
    [tool_call(6, "lisp_eval", {"program": "1", "output_schema": {"type": "date"}})],
    [tool_call(7, "lisp_eval", {"program": "1", "signature": ":int"})],
    [tool_call(8, "lisp_eval", {"program": "1", "extra": True})],
    [tool_call(9, "lisp_eval", {"program": "   "}), tool_call(10, "lisp_eval", {"program": 5})],
    [tool_call(11, "lisp_eval", {"program": "data/x", "context": [1, 2]}),
     tool_call(12, "lisp_eval", {"program": "1", "context": {"a/b": 1, "": 2}})],
    [tool_call(13, "lisp_eval", {"program": "(loop [i 0] (recur (inc i)))"})],
    [tool_call(14, "lisp_eval", {"program": "(def x 1) (fail {:why \"no\"})"})],
    [tool_call(15, "no_such_tool", {})],
    [rpc("logging/setLevel", {"level": "debug"}, 1),
     tool_call(2, "lisp_eval", {"program": "(+ 1 2)"}),
     rpc("logging/setLevel", {"level": "loud"}, 3)],
    [tool_call(1, "lisp_session_start", {"title": "t", "ttl_ms": 60000}),
     tool_call(2, "lisp_session_eval", {"session_id": "$SID", "program": "(def x 41)"}),
     tool_call(3, "lisp_session_eval", {"session_id": "$SID", "program": "(inc x)"}),
     tool_call(4, "lisp_session_eval", {"session_id": "$SID", "program": "(def x 0) (inc nil)"}),
     tool_call(5, "lisp_session_eval", {"session_id": "$SID", "program": "[x *1]"}),
     tool_call(6, "lisp_session_close", {"session_id": "$SID"}),
     tool_call(7, "lisp_session_eval", {"session_id": "$SID", "program": "1"})],
    [tool_call(1, "lisp_session_start", {}),
     tool_call(2, "lisp_session_eval", {"session_id": "$SID",
                                        "program": "(println \"p\") (defn f [a] (* a 2)) (f 3)",
                                        "context": {"k": [1, 2]},
                                        "output_schema": {"type": "integer"}}),
     tool_call(3, "lisp_session_inspect", {"session_id": "$SID", "view": "memory"}),
     tool_call(4, "lisp_session_inspect", {"session_id": "$SID", "view": "prints"}),
     tool_call(5, "lisp_session_inspect", {"session_id": "$SID", "view": "history"}),
     tool_call(6, "lisp_session_forget", {"session_id": "$SID", "bindings": ["f", "g"]}),
     tool_call(7, "lisp_session_forget", {"session_id": "$SID", "memory": True, "history": True,
                                          "prints": True})],
    [tool_call(1, "lisp_session_start", {"mode": "write_capable"}),
     tool_call(2, "lisp_session_start", {"preludes": ["p"]}),
     tool_call(3, "lisp_session_list", {"x": 1}),
     tool_call(4, "lisp_session_list", {}),
     tool_call(5, "lisp_session_list_preludes", {"session_id": "ptcs_AAAAAAAAAAAAAAAAAAAAAAAA"}),
     tool_call(6, "lisp_session_inspect", {"session_id": "nope", "view": "limits"})],
    [tool_call(1, "lisp_session_start", {}), tool_call(2, "lisp_session_start", {}),
     tool_call(3, "lisp_session_start", {}),
     tool_call(4, "lisp_session_list_preludes", {"session_id": "$SID"}),
     tool_call(5, "lisp_session_inspect", {"session_id": "$SID", "view": "tool_calls"})],
    [tool_call(1, "lisp_session_start", {}),
     tool_call(2, "lisp_session_eval", {"session_id": "$SID", "program": "(def big (range 5000))"}),
     tool_call(3, "lisp_session_eval", {"session_id": "$SID", "program": "(def a 1)",
                                        "signature": ":int"})],
    [tool_call(7, "lisp_eval", {"program": "(loop [i 0] (recur (inc i)))"}),
     rpc("notifications/cancelled", {"requestId": 7, "reason": "user"}, notification=True),
     rpc("notifications/cancelled", {"requestId": 99}, notification=True)],
    [rpc("shutdown", id=1), tool_call(2, "lisp_eval", {"program": "1"})],
    [rpc("no/such", id=1), rpc("whatever/unknown", notification=True),
     '{"jsonrpc":"2.0","id":5,"result":{}}', '{"jsonrpc":"2.0","id":6,"error":{"code":1}}'],
    ["not json", "[1,2]", "42", '{"id":1,"method":"ping"}',
     '{"jsonrpc":"1.0","id":1,"method":"ping"}', '{"jsonrpc":"2.0","id":1,"method":7}'],
    ['{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}',
     '{"jsonrpc":"2.0","id":1,"method":"ping","params":5}',
     '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}',
     '{"jsonrpc":"2.0","id":1,"method":"tools/call",'
     '"params":{"name":"lisp_eval","arguments":[1]}}'],
    ['{"jsonrpc":"2.0","id":"abc-1","method":"ping"}',
     '{"jsonrpc":"2.0","id":12345678901234567890123,"method":"ping"}',
     '{"jsonrpc":"2.0","id":1.5,"method":"ping"}', '{"jsonrpc":"2.0","id":null,"method":"ping"}',
     '{"jsonrpc":"2.0","id":-0,"method":"ping"}'],
    ['[{"jsonrpc":"2.0","id":1,"method":"ping"}]', '{"jsonrpc":"2.0","id":1,"method":"ping"',
     '\ufeff{"jsonrpc":"2.0","id":1,"method":"ping"}\r'],
    # Revision 2026-07-28: no handshake, an envelope on every request.
    [modern("server/discover", id=1), modern("tools/list", id=2),
     modern("tools/call", {"name": "lisp_eval", "arguments": {"program": "(+ 1 2)"}}, 3),
     modern("ping", id=4)],
    [modern("tools/list", id=1, meta={"io.modelcontextprotocol/protocolVersion": "2026-07-28"}),
     modern("tools/list", id=2, meta={**META, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}),
     modern("tools/list", id=3, meta={**META, "io.modelcontextprotocol/clientInfo": 7}),
     rpc("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}}, 4),
     modern("tools/call", {"name": "lisp_eval", "arguments": {"program": "1"}}, 5)],
    # Tasks ($TID: the newest task): created, followed, updated, cancelled.
    [modern("tools/call", {"name": "lisp_eval", "arguments": {"program": "(+ 1 2)"}}, 1, TASKS_META),
     modern("tasks/get", {"taskId": "$TID"}, 2, TASKS_META),
     modern("tasks/update", {"taskId": "$TID", "inputResponses": {"k": {"action": "accept"}}}, 3,
            TASKS_META),
     modern("tasks/cancel", {"taskId": "$TID"}, 4, TASKS_META),
     modern("tasks/get", {"taskId": "$TID"}, 5),
     modern("tasks/get", {"taskId": 7}, 6, TASKS_META),
     modern("tasks/list", {}, 7, TASKS_META)],
]


def jsonrpc_inputs():
    out = ["\n".join(c) for c in CONVERSATIONS]
    for profile in ("structured", "debug"):
        out += [f";profile {profile}\n" + "\n".join(c) for c in CONVERSATIONS[2:8]]
        out.append(f";profile {profile}\n" + "\n".join(CONVERSATIONS[16]))
    return out


TOKEN = "fuzz-token-0123456789abcdefghijklmnopqrstuvwxyz"  # fuzz_http.cpp's


def http(method, target, body=None, headers=None, defaults=True, chunked=False, version="1.1"):
    h = []
    if defaults:
        h.append(("Host", "127.0.0.1:7332"))
        if target.startswith("/mcp"):
            h.append(("Authorization", "Bearer " + TOKEN))
        if method == "POST":
            h += [("Content-Type", "application/json"),
                  ("Accept", "application/json, text/event-stream")]
    h += headers or []
    data = (body or "").encode("utf-8")
    if chunked:
        h.append(("Transfer-Encoding", "chunked"))
        half = len(data) // 2
        data = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in (data[:half], data[half:]) if p)
        data += b"0\r\n\r\n"
    elif body is not None:
        h.append(("Content-Length", str(len(data))))
    head = f"{method} {target} HTTP/{version}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in h)
    return head.encode("utf-8") + b"\r\n" + data


INIT = rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "seed", "version": "1"}}, 1)
SID = [("Mcp-Session-Id", "$SID"), ("MCP-Protocol-Version", "2025-06-18")]


MODERN = [("MCP-Protocol-Version", "2026-07-28")]


def http_inputs():
    call = tool_call(2, "lisp_eval", {"program": "(+ 1 2)"})
    modern_call = modern("tools/call", {"name": "lisp_eval", "arguments": {"program": "(+ 1 2)"}}, 3)
    out = [
        http("POST", "/mcp", modern("server/discover", id=1), MODERN + [("Mcp-Method", "server/discover")])
        + http("POST", "/mcp", modern_call, MODERN + [("Mcp-Method", "tools/call"), ("Mcp-Name", "lisp_eval")])
        + http("POST", "/mcp", modern_call, MODERN + [("Mcp-Method", "tools/list")])
        + http("POST", "/mcp", modern_call, [("Mcp-Method", "tools/call"), ("Mcp-Name", "x")]),
        # Tasks: Mcp-Name mirrors params.taskId (absent, another, the same).
        http("POST", "/mcp", modern("tasks/get", {"taskId": "ab12"}, 6, TASKS_META),
             MODERN + [("Mcp-Method", "tasks/get")])
        + http("POST", "/mcp", modern("tasks/cancel", {"taskId": "ab12"}, 7, TASKS_META),
               MODERN + [("Mcp-Method", "tasks/cancel"), ("Mcp-Name", "cd34")])
        + http("POST", "/mcp", modern("tasks/get", {"taskId": "ab12"}, 8),
               MODERN + [("Mcp-Method", "tasks/get"), ("Mcp-Name", "ab12")]),
        http("POST", "/mcp", INIT, MODERN)
        + http("POST", "/mcp", rpc("tools/list", {}, 4), MODERN + [("Mcp-Method", "tools/list")])
        + http("POST", "/mcp", modern("ping", id=5), MODERN + [("Mcp-Method", "ping")]),
        http("POST", "/mcp", INIT) + http("POST", "/mcp", rpc("notifications/initialized",
                                                               notification=True), SID)
        + http("POST", "/mcp", call, SID) + http("DELETE", "/mcp", None, SID),
        http("POST", "/mcp", INIT) + http("POST", "/mcp", call, SID, chunked=True),
        http("POST", "/mcp", INIT, [("Expect", "100-continue")]),
        http("POST", "/mcp", call, [("Mcp-Session-Id", "0123456789abcdef0123456789abcdef")]),
        http("POST", "/mcp", call),
        http("POST", "/mcp", "") + http("POST", "/mcp", "[1,2]"),
        http("POST", "/mcp", "not json", [("Connection", "close")]),
        http("GET", "/mcp") + http("GET", "/health") + http("GET", "/ready")
        + http("POST", "/health", "{}") + http("GET", "/nope?x=1"),
        http("DELETE", "/mcp") + http("DELETE", "/mcp", None, [("Mcp-Session-Id", "x")]),
        http("POST", "/mcp", INIT, [("Origin", "http://localhost:3000")])
        + http("POST", "/mcp", INIT, [("Origin", "null")])
        + http("POST", "/mcp", INIT, [("Origin", "https://evil.example")]),
        http("POST", "/mcp", INIT, [("Host", "evil.com")], defaults=False),
        http("POST", "/mcp", INIT, [("Host", "[::1]:7332"), ("Authorization", "Bearer " + TOKEN),
                                    ("Content-Type", "application/json")], defaults=False),
        http("POST", "/mcp", INIT, [("Host", "localhost"), ("Host", "127.0.0.1")], defaults=False),
        http("POST", "/mcp", INIT, [("Host", "127.0.0.1"), ("Authorization", "Bearer wrong")],
             defaults=False)
        + http("POST", "/mcp", INIT, [("Host", "127.0.0.1"), ("Authorization", "Basic eA==")],
               defaults=False),
        http("POST", "/mcp", INIT, [("Content-Type", "text/plain")], defaults=False)
        + http("POST", "/mcp", INIT, [("Host", "127.0.0.1"), ("Authorization", "Bearer " + TOKEN),
                                      ("Content-Type", "application/vnd.mcp+json; charset=utf-8"),
                                      ("Accept", "text/event-stream")], defaults=False),
        http("POST", "/mcp", INIT, [("MCP-Protocol-Version", "1999-01-01")])
        + http("POST", "/mcp", INIT, [("Accept", "text/event-stream, application/json;q=0")]),
        http("POST", "/mcp", INIT, [("Content-Length", "5000")], defaults=True).replace(
            b"Content-Length: " + str(len(INIT)).encode() + b"\r\n", b""),
        http("POST", "/mcp", INIT, version="1.0") + http("GET", "/health", version="1.0"),
        http("POST", "/mcp", INIT, [("Connection", "keep-alive"), ("X-Request-Id", "req-1")],
             version="1.0"),
        b"GARBAGE\r\n\r\n",
        b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n",
        http("POST", "/mcp", INIT) + http("POST", "/mcp", INIT) + http("POST", "/mcp", INIT),
        http("POST", "/mcp", INIT) + http("POST", "/mcp", tool_call(
            3, "lisp_session_start", {}), SID) + http("POST", "/mcp", rpc("ping", id=4), SID),
    ]
    return out


SCHEMAS = [
    (SCHEMA, ['{"n": 2, "names": ["a"]}', '{"n": "2"}', '{"names": []}', "[]"]),
    ({"type": "integer"}, ["3", "3.5", "null"]),
    ({"type": ["number", "null"]}, ["null", "1.5", "2", '"x"']),
    ({"type": "string", "format": "date-time"}, ['"2024-02-29T12:30:00Z"', '"yesterday"']),
    ({"type": "boolean"}, ["true", "0"]),
    ({"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}},
                                 "required": ["id"]}}, ['[{"id": 1}, {"id": 2, "x": 1}]', '[{}]']),
    ({"type": "object"}, ['{"a": 1}', '":kw"']),
    ({"properties": {"a": {}}}, ['{"a": [1, {"b": null}]}']),
    ({}, ['{"anything": [":k"]}']),
    ({"type": "array"}, ['[1, "x", null]']),
    ({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]}, ['{}']),
    ({"type": ["string", "integer"]}, ['"x"']),
    ({"type": "date"}, ['"x"']),
    ({"type": 5}, ["1"]),
    ({"type": "object", "properties": [1]}, ["{}"]),
    ({"type": "object", "properties": {}, "required": "a"}, ["{}"]),
    ({"type": "object", "properties": {"status": {"type": "string", "enum": ["ok"]},
                                       "nested": {"type": "object", "properties": {
                                           "deep": {"type": "array", "items": {"type": "array",
                                                    "items": {"type": "number"}}}}}}},
     ['{"status": "ok", "nested": {"deep": [[1, 2.5], []]}}', '{"nested": {"deep": [["x"]]}}']),
    (None, ["1"]),
    ([1], ["1"]),
]


def schema_inputs():
    out = []
    for schema, values in SCHEMAS:
        text = json.dumps(schema, separators=(",", ":"))
        out.append(text)
        out += [text + "\n" + v for v in values]
    return out


def upstream_inputs():
    """Byte 0 mod 3: 0 an upstreams file, 1 an SSE reply body, 2 an HTTP response."""
    configs = [
        {"upstreams": {"fs": {"transport": "mcp_stdio", "command": "npx",
                              "args": ["-y", "server-filesystem", "/tmp"], "env": {"K": "${API}"},
                              "cwd": "/tmp", "timeout_ms": 2000, "read_only_tools": ["read"]}},
         "credentials": {"API": {"source": "env", "var": "API_KEY"}}},
        {"upstreams": {"web": {"transport": "mcp_http", "url": "http://127.0.0.1:9/mcp",
                               "headers": {"Authorization": "Bearer ${TOKEN}"},
                               "max_response_bytes": 1024}},
         "credentials": {"TOKEN": {"source": "file", "path": "/nonexistent"}}},
        {"upstreams": {"x": {"transport": "mcp_http", "url": "https://example.com/mcp"}}},
        {"upstreams": {"x": {"transport": "carrier_pigeon"}}},
        {"upstreams": {}, "credentials": {"A": {"source": "env"}}},
    ]
    result = {"content": [{"type": "text", "text": "{\"a\": [1, 2]}"}]}
    structured = {"content": [{"type": "text", "text": "x"}], "structuredContent": {"n": 1}}
    replies = [
        "event: message\ndata: " + json.dumps({"jsonrpc": "2.0", "id": 1, "result": result}) + "\n\n",
        "data: " + json.dumps({"jsonrpc": "2.0", "id": 2, "result": structured}) + "\r\n\r\n",
        "data: {\"jsonrpc\":\"2.0\",\ndata: \"id\":3,\"result\":{\"content\":[]}}\n\n",
        ": comment\nid: 7\nretry: 10\ndata: " + json.dumps(
            {"jsonrpc": "2.0", "id": 4, "result": {"content": [
                {"type": "text", "text": "fuzz-secret-7f3a9c"}, {"type": "image", "data": "AA=="}]}}),
    ]
    body = json.dumps({"jsonrpc": "2.0", "id": 7, "result": result})
    responses = [
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
        "Mcp-Session-Id: abc\r\n\r\n%s" % (len(body), body),
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/event-stream\r\n\r\n"
        "%x\r\n%s\r\n0\r\n\r\n" % (len("data: " + body + "\n\n"), "data: " + body + "\n\n"),
        "HTTP/1.1 401 Unauthorized\r\nContent-Length: 6\r\n\r\ndenied",
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\nevent: message\ndata: " + body + "\n\n",
    ]
    return (["\x00" + json.dumps(c) for c in configs] + ["\x01" + r for r in replies] +
            ["\x02" + r for r in responses])


def agent_json_inputs():
    """Models' answers and agent options, each one JSON value (the target
    reads every input as both, and as a content-mode reply's text): the
    scripts of tests/cli/agent, their parts, answers and options that are
    wrong in the ways hosts send them, and content-mode replies."""
    here = os.path.dirname(os.path.abspath(__file__))
    agent_dir = os.path.join(here, "..", "cli", "agent")
    docs = []
    for name in sorted(os.listdir(agent_dir)):
        if name.endswith(".json"):
            with open(os.path.join(agent_dir, name)) as f:
                script = json.load(f)
            docs.append(script["agent"])
            docs.extend(script["llm"])
    call = lambda id, name, args: {"id": id, "type": "function",
                                   "function": {"name": name, "arguments": args}}
    docs += [
        {"role": "assistant", "content": "The total is 42."},
        {"role": "assistant", "content": "Checking.", "tool_calls": [
            call("a", "lisp_eval", '{"program": "(+ 1 2)"}'), call("b", "search", '{"q": "x"}')],
         "tokens": {"input": 120, "output": 30, "cache_creation": 0, "cache_read": 64}},
        {"role": "assistant", "tool_calls": [call("", "lisp_eval", "not json")]},
        {"role": "assistant", "tool_calls": [call("c", "lisp_eval", "[1, 2]")]},
        {"role": "assistant", "tool_calls": [{"id": "d", "function": {"name": "lisp_eval",
                                                                      "arguments": {"program": "1"}}}]},
        {"role": "assistant", "tool_calls": [{"id": 7, "function": {}}]},
        {"role": "user", "content": "hi"},
        {"error": "rate limited"},
        {"role": "assistant", "tokens": {"input": -1, "output": "many"}},
        {"output": "text", "tools": {"t": {"description": "d", "signature": "(a :int) -> :int",
                                           "expose": "native", "cache": False,
                                           "native_result": {"preview": "rows", "limit": 3}}},
         "max_turns": 3, "retry_turns": 1, "max_tool_calls": 5, "memory_limit": 0,
         "memory_strategy": "rollback", "mission_timeout_ms": 1000, "system_prompt": "Be brief."},
        {"output": "ptc_lisp", "signature": "{total :int", "max_turns": 0},
        {"output": "x", "transport": "content"},
        {"tools": {"lisp_eval": {}}},
        {"tools": {"t": {"expose": "everywhere", "native_result": {"limit": 0}}}},
        {"max_turns": 99999999999, "context": [1, 2]},
    ]
    replies = [
        "Let me sum them.\n```clojure\n(return (reduce + data/xs))\n```",
        "```lisp\n(def a 1)\n```\nand\n```clojure\n(return a)\n```",
        "```\n(+ 1 2)\n```", "<clojure>(return :ok)</clojure>", "(return 42)",
        "```clojure\r\n(str \u201chi\u201d)\r\n```", "```clojure\n(unclosed", "42",
    ]
    return [json.dumps(d, sort_keys=True) for d in docs] + replies


def model_response_inputs():
    """Model providers' replies: byte 0 mod 4 picks the reader (0 an OpenAI
    answer, 1 an OpenAI error, 2 an Anthropic answer, 3 an Anthropic error);
    an error's HTTP status follows in two big-endian bytes; then the body.
    Answers of every shape the readers take (text, tool calls with arguments
    as text or an object, content parts, refusals, thinking blocks, usage),
    errors as OpenAI, Anthropic, llama.cpp, Ollama, vLLM and OpenRouter word
    them, and bodies that are not JSON."""
    def dump(v):
        return json.dumps(v, separators=(",", ":"))

    def fn(id, name, args):
        return {"id": id, "type": "function", "function": {"name": name, "arguments": args}}

    def completion(message, finish="stop", usage=None):
        doc = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
               "choices": [{"index": 0, "message": message, "finish_reason": finish,
                            "logprobs": None}]}
        if usage is not None:
            doc["usage"] = usage
        return dump(doc)

    def message(content, stop="end_turn", usage=None):
        return dump({"id": "msg_01", "type": "message", "role": "assistant", "model": "claude",
                     "content": content, "stop_reason": stop, "stop_sequence": None,
                     "usage": usage or {"input_tokens": 10, "output_tokens": 5}})

    openai = [
        completion({"role": "assistant", "content": "42", "refusal": None},
                   usage={"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}),
        completion({"role": "assistant", "content": None, "tool_calls": [
            fn("call_1", "lisp_eval", dump({"program": "(+ 1 2)"}))]}, "tool_calls"),
        completion({"role": "assistant", "content": "Both.", "tool_calls": [
            fn("a", "f", "{}"), fn("b", "g", {"q": "x"}),
            {"type": "function", "function": {"name": "h", "arguments": "[1"}}]}, "tool_calls"),
        completion({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "The answer "},
            {"type": "text", "text": "is 42."}, {"type": "refusal", "refusal": "no"}]}),
        completion({"role": "assistant", "content": None, "refusal": "I can't help with that."}),
        completion({"role": "assistant", "content": "x"}, None,
                   {"prompt_tokens": 2006, "completion_tokens": 300,
                    "prompt_tokens_details": {"cached_tokens": 1920, "cache_write_tokens": 64},
                    "prompt_cache_hit_tokens": 8}),
        completion({"content": 5}), completion({"tool_calls": [{"id": 7, "function": {}}]}),
        dump({"choices": []}), dump({"choices": [{"message": {"content": "x"}, "finish_reason": 1}]}),
        dump({"error": {"message": "Rate limit exceeded", "code": 429}}),
        dump({"object": "error", "message": "bad", "type": "BadRequestError", "code": 400}),
        "<html>502 Bad Gateway</html>", "",
    ]
    anthropic = [
        message([{"type": "text", "text": "42", "citations": None}]),
        message([{"type": "text", "text": "First."}, {"type": "text", "text": "Second."}]),
        message([{"type": "thinking", "thinking": "Let me see.", "signature": "abc"},
                 {"type": "redacted_thinking", "data": "xyz"},
                 {"type": "text", "text": "Checking."},
                 {"type": "tool_use", "id": "toolu_a", "name": "lisp_eval",
                  "input": {"program": "(+ 1 2)"}},
                 {"type": "server_tool_use", "id": "srv", "name": "web_search", "input": {}},
                 {"type": "tool_use", "id": "toolu_b", "name": "g", "input": [1, 2]}],
                "tool_use",
                {"input_tokens": 21, "output_tokens": 393, "cache_creation_input_tokens": 188086,
                 "cache_read_input_tokens": None}),
        message([]), message("hi"), message([{"type": "tool_use", "id": "t", "name": ""}]),
        dump({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        "{\"type\":\"message\",\"content\":[{\"type\":\"text\",\"text\":",
    ]
    openai_errors = [
        (401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",
                         "param": None, "code": "invalid_api_key"}}),
        (429, {"error": {"message": "You exceeded your current quota", "type": "insufficient_quota",
                         "code": "insufficient_quota"}}),
        (429, {"error": {"message": "Rate limit reached for gpt-4.1 on tokens per min (TPM)",
                         "type": "tokens", "code": "rate_limit_exceeded"}}),
        (400, {"error": {"message": "This model's maximum context length is 128000 tokens.",
                         "type": "invalid_request_error", "code": "context_length_exceeded"}}),
        (400, {"error": {"code": 400, "message": "request (4476 tokens) exceeds the available "
                         "context size (4096 tokens), try increasing it",
                         "type": "exceed_context_size_error", "n_ctx": 4096}}),
        (400, {"error": dump({"error": {"code": 400, "message": "request exceeds the available "
                                        "context size", "type": "exceed_context_size_error"}})}),
        (400, {"error": {"message": "llama3 does not support tools", "type": "api_error"}}),
        (500, {"error": {"code": 500, "message": "tools param requires --jinja flag",
                         "type": "server_error"}}),
        (400, {"object": "error", "message": "\"auto\" tool choice requires "
               "--enable-auto-tool-choice and --tool-call-parser to be set",
               "type": "BadRequestError", "code": 400}),
        (404, {"error": {"message": "No endpoints found that support tool use.", "code": 404}}),
        (404, {"detail": "Not Found"}),
        (503, {"error": {"message": "The engine is currently overloaded"}}),
    ]
    anthropic_errors = [
        (401, "authentication_error", "invalid x-api-key"),
        (400, "billing_error", "Your credit balance is too low"),
        (429, "rate_limit_error", "Number of request tokens has exceeded your rate limit"),
        (529, "overloaded_error", "Overloaded"), (504, "timeout_error", "Request timed out"),
        (413, "request_too_large", "Request exceeds the maximum size"),
        (400, "invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum"),
        (404, "not_found_error", "model: claude-9"),
    ]
    status = lambda code: bytes([code >> 8, code & 0xFF])
    out = [b"\x00" + body.encode() for body in openai]
    out += [b"\x02" + body.encode() for body in anthropic]
    out += [b"\x01" + status(code) + dump(body).encode() for code, body in openai_errors]
    out += [b"\x03" + status(code) + dump({"type": "error", "error": {"type": t, "message": m},
                                           "request_id": "req_1"}).encode()
            for code, t, m in anthropic_errors]
    html = b"<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
    out += [b"\x01" + status(502) + html, b"\x03" + status(502) + html,
            b"\x01" + status(408), b"\x03" + status(0) + b"{}"]
    return out


def write(out_dir, target, inputs):
    d = os.path.join(out_dir, target)
    os.makedirs(d, exist_ok=True)
    seen = set()
    for text in inputs:
        data = text if isinstance(text, bytes) else text.encode("utf-8")
        if len(data) > MAX_BYTES or data in seen:
            continue
        seen.add(data)
        with open(os.path.join(d, f"seed-{len(seen):04d}"), "wb") as f:
            f.write(data)


def select(control, cap, dest):
    """The merge control file lists the inputs, then per input run the edges
    (COV) and features (FT) it added to those before it. Keep the CAP inputs
    that added the most edges (then features, then the smaller)."""
    with open(control, encoding="utf-8") as f:
        lines = f.read().splitlines()
    n = int(lines[0])
    paths = lines[2:2 + n]
    cov, ft = {}, {}
    for line in lines[2 + n:]:
        parts = line.split()
        if parts and parts[0] in ("COV", "FT"):
            (cov if parts[0] == "COV" else ft)[int(parts[1])] = len(parts) - 2
    useful = [i for i in range(n) if cov.get(i, 0) or ft.get(i, 0)]
    useful.sort(key=lambda i: (-cov.get(i, 0), -ft.get(i, 0), os.path.getsize(paths[i])))
    os.makedirs(dest, exist_ok=True)
    for i in useful[:cap]:
        with open(paths[i], "rb") as f:
            name = hashlib.sha1(f.read()).hexdigest()
        shutil.copyfile(paths[i], os.path.join(dest, name))


EXECUTION_PROGRAMS = [
    "(tool/get {:id 1})",
    "(let [u (tool/get {:id 1})] (if (map? u) (:n u) u))",
    "(reduce + (map #(let [r (tool/get {:i %})] (if (number? r) r 1)) (range 6)))",
    "(pmap #(tool/get {:i %}) (range 4))",
    "(pmap (fn [i] (let [a (tool/get {:i i}) b (tool/put {:a a})] [a b])) (range 3))",
    "(pcalls #(tool/get {}) #(tool/put {}) #(tool/get {:k 1}))",
    "(pmap (fn [x] (pmap #(tool/get {:x x :y %}) [1 2])) [1 2])",
    "(doseq [i (range 3)] (println (tool/get {:i i})))",
    "(tool/get {:fail true})",
    "(pmap #(tool/get {:fail (= % 2)}) (range 4))",
    "(for [x (range 3) :let [r (tool/get {:x x})]] r)",
    "(def total (atom 0)) (doseq [i (range 3)] (swap! total + (count (str (tool/get {:i i}))))) @total",
    "(loop [i 0 acc []] (if (< i 4) (recur (inc i) (conj acc (tool/get {:i i}))) acc))",
    "(defn f [x] (tool/get {:x x})) (pmap f [1 2]) (f 3)",
    "(return (tool/get {:done true}))",
    "(fail (tool/get {}))",
    "(let [a (tool/get {}) b (tool/get {})] (= a b))",
    "(->> (range 5) (filter odd?) (map #(tool/put {:v %})) (into []))",
]


def execution_inputs():
    out = list(EXECUTION_PROGRAMS)
    for i, p in enumerate(EXECUTION_PROGRAMS):
        out.append("%d\n%s" % (i % 4, p))
    return out


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "select":
        select(sys.argv[2], int(sys.argv[3]), sys.argv[4])
        return
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    progs = programs()
    write(out, "reader", progs)
    write(out, "compile", progs)
    write(out, "run", progs)
    write(out, "collect", progs)
    write(out, "json", json_docs())
    write(out, "signature", signature_inputs())
    write(out, "memory", memory_inputs())
    write(out, "execution", execution_inputs())
    write(out, "jsonrpc", jsonrpc_inputs())
    write(out, "http", http_inputs())
    write(out, "schema", schema_inputs())
    write(out, "upstream", upstream_inputs())
    write(out, "agent_json", agent_json_inputs())
    write(out, "model_response", model_response_inputs())


if __name__ == "__main__":
    main()
