"""End-to-end tests of `ptc agent --model` against local fake providers
(fake_provider.py) speaking OpenAI Chat Completions and Anthropic Messages:
the seed-003 transcript in both formats, a ptc_lisp run ending in (return
...), parallel tool calls, text beside tool calls, the faults (429 with
Retry-After, 500 then success, 401, a slow answer past the timeout, a
truncated body, malformed JSON, an answer over the size cap), https with a
certificate made at test time, and a recorded run replayed with the server
gone. No network: every server is on 127.0.0.1.

    python3 agent_model_test.py PATH/TO/ptc
"""

import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_provider import FakeProvider  # noqa: E402

PTC = None
HERE = os.path.dirname(os.path.abspath(__file__))
KEY = "sk-test-5ecret-key-0123456789"


def seed_003_tools(folder):
    """The app tools of seed 003 (search_logs and its 1842 rows) as a --tools file."""
    with open(os.path.join(HERE, "agent", "combined_cache_bridge.json")) as f:
        tools = json.load(f)["agent"]["tools"]
    path = os.path.join(folder, "tools.json")
    with open(path, "w") as f:
        json.dump(tools, f)
    return path


SEED_003 = [
    {"answer": {"tool_calls": [{"id": "call_1", "name": "search_logs",
                                "arguments": {"query": "error code 42"}}]}},
    {"answer": {"tool_calls": [{"id": "call_2", "name": "lisp_eval", "arguments": {
        "program": "(def rows (tool/search_logs {:query \"error code 42\"}))\n"
                   "(return {:total (count rows)})"}}]}},
    {"answer": {"content": "There were 1842 errors with code 42 in the queried window."}},
]


class AgentModelTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            s.close()
        self.tmp.cleanup()

    def serve(self, wire, script, **kw):
        s = FakeProvider(wire, script, **kw)
        self.servers.append(s)
        return s

    def ptc(self, *args, env_key=True):
        env = dict(os.environ)
        env.pop("OPENAI_API_KEY", None)
        env.pop("ANTHROPIC_API_KEY", None)
        if env_key:
            env["OPENAI_API_KEY"] = KEY
            env["ANTHROPIC_API_KEY"] = KEY
        started = time.monotonic()
        r = subprocess.run([PTC, "agent", *args], capture_output=True, text=True, env=env,
                           timeout=120)
        r.seconds = time.monotonic() - started
        for stream in (r.stdout, r.stderr):
            self.assertNotIn(KEY, stream, "the API key leaked into the output")
        return r

    def model_args(self, server, spec_model="fake-model"):
        spec = ("anthropic:" if server.wire == "anthropic" else "openai:") + spec_model
        return ["--model", spec, "--base-url", server.base_url]

    def assert_clean(self, server):
        self.assertEqual(server.problems, [], "the fake provider found problems with the requests")

    # -------------------------------------------------------------- transcripts

    def seed_003(self, wire):
        server = self.serve(wire, SEED_003)
        r = self.ptc(*self.model_args(server), "--prompt", "How many errors with code 42 last hour?",
                     "--output", "text", "--tools", seed_003_tools(self.dir), "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = json.loads(r.stdout)
        self.assertTrue(out["ok"])
        self.assertEqual(out["return"], "There were 1842 errors with code 42 in the queried window.")
        self.assertEqual(out["tool_executions"], {"search_logs": 1})  # lisp_eval reused the cache
        self.assertEqual(out["turns"], 3)
        self.assertEqual(out["usage"]["calls"], 3)
        self.assertEqual(out["usage"]["input"], 101 + 102 + 103)
        self.assertEqual(out["usage"]["output"], 11 + 12 + 13)
        self.assertEqual(out["usage"]["cached"], 1 + 2 + 3)
        self.assert_clean(server)
        self.assertEqual(len(server.requests), 3)
        # The native call's result reached the model as a metadata preview.
        last = json.dumps(server.requests[2]["body"])
        self.assertIn("1842", last)
        lines = [l for l in r.stderr.splitlines() if l.startswith("turn ")]
        self.assertEqual(len(lines), 3, r.stderr)
        self.assertIn("in / ", lines[0])
        self.assertIn("program ok", lines[1])
        return server

    def test_seed_003_openai(self):
        server = self.seed_003("openai")
        tools = server.requests[0]["body"]["tools"]
        self.assertEqual(sorted(t["function"]["name"] for t in tools), ["lisp_eval", "search_logs"])

    def test_seed_003_anthropic(self):
        server = self.seed_003("anthropic")
        body = server.requests[0]["body"]
        self.assertIsInstance(body["system"], str)
        self.assertEqual(sorted(t["name"] for t in body["tools"]), ["lisp_eval", "search_logs"])

    def test_ptc_lisp_run_ends_with_return(self):
        for wire in ("openai", "anthropic"):
            server = self.serve(wire, [
                {"answer": {"tool_calls": [{"id": "t1", "name": "lisp_eval", "arguments": {
                    "program": "(def totals (map :total data/orders))"}}]}},
                {"answer": {"tool_calls": [{"id": "t2", "name": "lisp_eval", "arguments": {
                    "program": "(return {:total (reduce + totals)})"}}]}},
            ])
            context = os.path.join(self.dir, "context.json")
            with open(context, "w") as f:
                json.dump({"orders": [{"id": 1, "total": 10}, {"id": 2, "total": 32}]}, f)
            r = self.ptc(*self.model_args(server), "--prompt", "Total of all orders?",
                         "--context", context, "--signature", "{total :int}")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(json.loads(r.stdout), {"total": 42})
            self.assert_clean(server)
            # Only lisp_eval is offered in ptc_lisp mode.
            body = server.requests[0]["body"]
            names = [t["function"]["name"] if wire == "openai" else t["name"] for t in body["tools"]]
            self.assertEqual(names, ["lisp_eval"])

    def test_parallel_tool_calls_and_text_beside_them(self):
        tools = os.path.join(self.dir, "tools.json")
        with open(tools, "w") as f:
            json.dump({"weather": {"description": "Weather in a city.",
                                   "signature": "(city :string) -> {temp :int}", "expose": "native",
                                   "replay": [{"args": {"city": "Oslo"}, "result": {"temp": 3}},
                                              {"args": {"city": "Rome"}, "result": {"temp": 17}}]}},
                      f)
        for wire in ("openai", "anthropic"):
            server = self.serve(wire, [
                {"answer": {"content": "Let me look both up.", "tool_calls": [
                    {"id": "a1", "name": "weather", "arguments": {"city": "Oslo"}},
                    {"id": "a2", "name": "weather", "arguments": {"city": "Rome"}}]}},
                {"answer": {"content": "Oslo 3, Rome 17."}},
            ])
            r = self.ptc(*self.model_args(server), "--prompt", "Weather in Oslo and Rome?",
                         "--output", "text", "--tools", tools)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.strip(), "Oslo 3, Rome 17.")
            self.assert_clean(server)
            second = json.dumps(server.requests[1]["body"])
            self.assertIn("Let me look both up.", second)  # the text beside the calls went back
            self.assertIn("17", second)  # both results, each paired with its call (assert_clean)

    # -------------------------------------------------------------- faults

    def test_429_with_retry_after_is_honoured(self):
        server = self.serve("openai", [
            {"status": 429, "headers": {"Retry-After": "1"},
             "body": {"error": {"message": "Rate limit reached", "type": "requests",
                                "code": "rate_limit_exceeded"}}},
            {"answer": {"content": "done"}},
        ])
        r = self.ptc(*self.model_args(server), "--prompt", "hi", "--output", "text")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "done")
        self.assertGreaterEqual(r.seconds, 0.9)
        self.assertIn("rate_limited, retry in 1.0 s", r.stderr)

    def test_500_then_success(self):
        server = self.serve("anthropic", [
            {"status": 500, "body": {"type": "error", "error": {"type": "api_error",
                                                                  "message": "Internal"}}},
            {"answer": {"content": "done"}},
        ])
        r = self.ptc(*self.model_args(server), "--prompt", "hi", "--output", "text", "--json",
                     "--price-in", "2", "--price-out", "10")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = json.loads(r.stdout)
        self.assertEqual(out["return"], "done")
        self.assertEqual(out["usage"]["retries"], 1)
        # Only the answered call has tokens: 102 in, 12 out, at USD 2 and 10 per million.
        self.assertEqual((out["usage"]["input"], out["usage"]["output"]), (102, 12))
        self.assertAlmostEqual(out["usage"]["cost"], (102 * 2 + 12 * 10) / 1e6)

    def test_401_is_auth_failed_and_never_shows_the_key(self):
        server = self.serve("openai", [
            {"status": 401, "body": {"error": {"message": f"Incorrect API key provided: {KEY}.",
                                               "type": "invalid_request_error",
                                               "code": "invalid_api_key"}}},
            {"answer": {"content": "must not be asked"}},
        ])
        r = self.ptc(*self.model_args(server), "--prompt", "hi", "--json")
        self.assertEqual(r.returncode, 1)
        fail = json.loads(r.stdout)["fail"]
        self.assertEqual((fail["reason"], fail["kind"], fail["retryable"]),
                         ("llm_error", "auth_failed", False))
        self.assertIn("[redacted]", fail["message"])
        self.assertEqual(len(server.requests), 1)  # not retried

    def test_slow_answer_past_the_timeout(self):
        server = self.serve("openai", [{"delay": 2, "answer": {"content": "late"}}])
        r = self.ptc(*self.model_args(server), "--prompt", "hi", "--request-timeout", "300",
                     "--retries", "0", "--json")
        self.assertEqual(r.returncode, 1)
        fail = json.loads(r.stdout)["fail"]
        self.assertEqual((fail["kind"], fail["retryable"]), ("timeout", True))
        self.assertLess(r.seconds, 2)

    def test_truncated_body_is_retried(self):
        server = self.serve("openai", [
            {"truncate": True, "answer": {"content": "cut"}},
            {"answer": {"content": "whole"}},
        ])
        r = self.ptc(*self.model_args(server), "--prompt", "hi", "--output", "text")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "whole")
        self.assertIn("server_error, retry in", r.stderr)

    def test_malformed_json_is_not_retried(self):
        server = self.serve("anthropic", [{"raw_body": "{\"content\": [oops"},
                                          {"answer": {"content": "must not be asked"}}])
        r = self.ptc(*self.model_args(server), "--prompt", "hi", "--json")
        self.assertEqual(r.returncode, 1)
        self.assertEqual(json.loads(r.stdout)["fail"]["kind"], "malformed_response")
        self.assertEqual(len(server.requests), 1)

    def test_answer_over_the_size_cap(self):
        server = self.serve("openai", [{"answer": {"content": "x" * 50000}}])
        r = self.ptc(*self.model_args(server), "--prompt", "hi", "--max-response-bytes", "10000",
                     "--json")
        self.assertEqual(r.returncode, 1)
        fail = json.loads(r.stdout)["fail"]
        self.assertEqual(fail["kind"], "malformed_response")
        self.assertIn("10000", fail["message"])

    def test_https_with_a_certificate_made_now(self):
        server = self.serve("anthropic", [{"answer": {"content": "secure"}}], tls_dir=self.dir)
        r = self.ptc(*self.model_args(server), "--prompt", "hi", "--output", "text",
                     "--ca-file", server.ca_file)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "secure")
        # Without the CA the certificate is not trusted: no answer is read.
        r = self.ptc(*self.model_args(server), "--prompt", "hi", "--retries", "0", "--json")
        self.assertEqual(r.returncode, 1)
        self.assertIn("not trusted", json.loads(r.stdout)["fail"]["message"])

    # -------------------------------------------------------------- record and replay

    def test_record_then_replay_with_the_server_gone(self):
        server = self.serve("openai", SEED_003)
        recording = os.path.join(self.dir, "run.jsonl")
        args = ["--prompt", "How many errors with code 42 last hour?", "--output", "text",
                "--tools", seed_003_tools(self.dir), "--json"]
        live = self.ptc(*self.model_args(server), *args, "--record", recording)
        self.assertEqual(live.returncode, 0, live.stderr)
        server.close()
        self.servers.remove(server)
        with open(recording) as f:
            text = f.read()
        self.assertNotIn(KEY, text)
        self.assertNotIn("Bearer", text)
        self.assertEqual(len(text.splitlines()), 3)
        replayed = self.ptc("--model", "openai:fake-model", *args, "--replay", recording,
                            env_key=False)
        self.assertEqual(replayed.returncode, 0, replayed.stderr)
        self.assertEqual(replayed.stdout, live.stdout)  # byte for byte
        # Another question is not in the recording: replay_miss, with the nearest.
        args[1] = "How many warnings?"
        miss = self.ptc("--model", "openai:fake-model", *args, "--replay", recording,
                        env_key=False)
        self.assertEqual(miss.returncode, 1)
        fail = json.loads(miss.stdout)["fail"]
        self.assertEqual(fail["kind"], "replay_miss")
        self.assertIn("nearest recorded one is line 1", fail["message"])
        self.assertIn("How many warnings?", fail["message"])

    # -------------------------------------------------------------- the command line

    def test_bad_model_flags(self):
        cases = [
            (["--model", "gemini:x", "--prompt", "hi"], "unknown model provider"),
            (["--model", "openai:", "--prompt", "hi"], "names no model"),
            (["--model", "openai-compat:llama", "--prompt", "hi"], "needs --base-url"),
            (["--model", "openai:gpt", "--prompt", "hi", "--base-url", "http://example.com/v1"],
             "loopback"),
            (["--model", "openai:gpt", "--prompt", "hi", "--temperature", "hot"], "--temperature"),
            (["--model", "openai:gpt"], "--prompt"),
        ]
        for args, needle in cases:
            r = self.ptc(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(needle, r.stderr, args)
        r = self.ptc("--model", "anthropic:claude", "--prompt", "hi", env_key=False)
        self.assertEqual(r.returncode, 2)
        self.assertIn("ANTHROPIC_API_KEY", r.stderr)

    def test_key_from_a_file_and_openai_compat(self):
        server = self.serve("openai", [{"answer": {"content": "compat ok"}}])
        key_file = os.path.join(self.dir, "key")
        with open(key_file, "w") as f:
            f.write(KEY + "\n")
        r = self.ptc("--model", "openai-compat:llama", "--base-url", server.base_url,
                     "--api-key-file", key_file, "--prompt", "hi", "--output", "text",
                     env_key=False)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "compat ok")
        self.assert_clean(server)
        self.assertIn("max_tokens", server.requests[0]["body"])
        # openai-compat sends no key unless one is given: OPENAI_API_KEY stays home.
        server = self.serve("openai", [{"answer": {"content": "no key"}}], key=None)
        r = self.ptc("--model", "openai-compat:llama", "--base-url", server.base_url,
                     "--prompt", "hi", "--output", "text")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("Authorization", server.requests[0]["headers"])


if __name__ == "__main__":
    PTC = sys.argv.pop(1)
    unittest.main(verbosity=2)
