#!/usr/bin/env python3
"""Seed corpora of the fuzz targets (run by scripts/fuzz reseed).

  make_seeds.py OUT                      writes candidates into OUT/<target>/
  make_seeds.py select CONTROL CAP DEST  copies at most CAP of the inputs a
                                         libFuzzer merge control file lists into
                                         DEST, those adding the most coverage

Programs come from spec/cases/*.jsonl, bench/programs.jsonl and examples/;
JSON documents from the contexts there and a few edge cases; signatures and
memory maps from the lists below.
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


def write(out_dir, target, inputs):
    d = os.path.join(out_dir, target)
    os.makedirs(d, exist_ok=True)
    seen = set()
    for text in inputs:
        data = text.encode("utf-8")
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
    write(out, "json", json_docs())
    write(out, "signature", signature_inputs())
    write(out, "memory", memory_inputs())


if __name__ == "__main__":
    main()
