"""What the agent loop adds per turn over the model provider's own time,
for `ptc agent --model` against a local fake provider (tests/cli/
fake_provider.py) that answers at once: each turn is one model call and one
lisp_eval program. A run of SHORT turns and one of LONG turns are timed end
to end (the process, its start included), the fake's own time for every
request is taken out of each, and the difference per extra turn is the
loop's cost: building the request (the conversation so far, as JSON),
sending it and reading the answer on a kept-alive connection, decoding it,
running the program and rendering its payload. Median of ROUNDS pairs.

    python3 bench/agent_turn_overhead.py [PATH/TO/ptc] [--rounds N]
"""

import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "cli"))
from fake_provider import FakeProvider  # noqa: E402

KEY = "sk-bench-key"
SHORT, LONG = 2, 22


def script(turns):
    steps = [{"answer": {"tool_calls": [{"id": f"t{k}", "name": "lisp_eval", "arguments": {
        "program": f"(def x{k} (reduce + (map :total data/orders)))"}}]}}
             for k in range(turns - 1)]
    steps.append({"answer": {"tool_calls": [{"id": "last", "name": "lisp_eval", "arguments": {
        "program": "(return {:total x0})"}}]}})
    return steps


def timed_run(ptc, wire, turns):
    server = FakeProvider(wire, script(turns), key=KEY)
    context = os.path.join(ROOT, "build", "agent-bench-context.json")
    with open(context, "w") as f:
        f.write('{"orders": [{"total": 10}, {"total": 32}]}')
    env = dict(os.environ, OPENAI_API_KEY=KEY, ANTHROPIC_API_KEY=KEY)
    started = time.perf_counter()
    r = subprocess.run([ptc, "agent", "--model", f"{wire}:fake", "--base-url", server.base_url,
                        "--prompt", "Total?", "--context", context, "--max-turns", str(turns),
                        "--signature", "{total :int}"], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - started
    server.close()
    if r.returncode != 0 or r.stdout.strip() != '{"total":42}' or server.problems:
        sys.exit(f"agent run failed: {r.stdout} {r.stderr} {server.problems}")
    return wall, server.server_seconds


def main():
    args = sys.argv[1:]
    rounds = 7
    if "--rounds" in args:
        i = args.index("--rounds")
        rounds = int(args[i + 1])
        del args[i:i + 2]
    ptc = args[0] if args else os.path.join(ROOT, "build", "ptc")
    print(f"ptc agent --model against a fake provider: {SHORT} and {LONG} turns, "
          f"{rounds} rounds, median")
    for wire in ("openai", "anthropic"):
        per_turn, provider = [], []
        for _ in range(rounds):
            ws, ss = timed_run(ptc, wire, SHORT)
            wl, sl = timed_run(ptc, wire, LONG)
            per_turn.append(((wl - sl) - (ws - ss)) / (LONG - SHORT) * 1000)
            provider.append(sl / LONG * 1000)
        print(f"  {wire:10} loop {statistics.median(per_turn):6.3f} ms per turn "
              f"(quartiles {statistics.quantiles(per_turn, n=4)[0]:.3f} .. "
              f"{statistics.quantiles(per_turn, n=4)[2]:.3f}); the fake provider's own time "
              f"{statistics.median(provider):.3f} ms per request")


if __name__ == "__main__":
    main()
