"""Fake model providers for the agent's end-to-end tests: a local HTTP(S)
server that speaks OpenAI Chat Completions or Anthropic Messages, checks
every request it gets (path, headers, auth, the tool schema, message order,
tool-result pairing) and answers from a script.

A script is a list of steps, one per request, in order. A step is a dict:
  {"answer": {...}}      an assistant turn: {"content": str, "tool_calls":
                         [{"id", "name", "arguments": dict}]}, rendered in the
                         server's wire format with usage tokens
  {"status": 429, "headers": {...}, "body": str | dict}   any reply
  {"delay": seconds, ...} wait before answering (a slow server)
  {"truncate": True, ...} send half of the body and close
  {"raw_body": str, ...}  a 200 whose body is this text (malformed JSON)
Every request is kept in `requests` (path, headers, body) and its problems
in `problems`: a test asserts that `problems` is empty.
"""

import http.server
import json
import os
import socket
import ssl
import subprocess
import threading
import time


class FakeProvider:
    def __init__(self, wire, script, key="sk-test-5ecret-key-0123456789", tls_dir=None):
        self.wire = wire  # "openai" or "anthropic"
        self.script = list(script)
        self.key = key
        self.requests = []
        self.problems = []
        self.server_seconds = 0.0  # handling every request: reading, checks, answering
        self.lock = threading.Lock()
        provider = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                started = time.perf_counter()
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                provider._serve(self, raw)
                with provider.lock:
                    provider.server_seconds += time.perf_counter() - started

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.tls = tls_dir is not None
        if self.tls:
            cert, keyfile = make_certificate(tls_dir)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(cert, keyfile)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
            self.ca_file = cert
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self):
        scheme = "https" if self.tls else "http"
        host = "localhost" if self.tls else "127.0.0.1"
        base = f"{scheme}://{host}:{self.port}"
        return base + "/v1" if self.wire == "openai" else base

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    # ------------------------------------------------------------ checks

    def _problem(self, text):
        self.problems.append(f"request {len(self.requests)}: {text}")

    def _check(self, handler, body):
        h = {k.lower(): v for k, v in handler.headers.items()}
        if "application/json" not in h.get("content-type", ""):
            self._problem(f"content-type {h.get('content-type')!r}")
        if self.wire == "openai":
            if handler.path != "/v1/chat/completions":
                self._problem(f"path {handler.path}")
            if self.key and h.get("authorization") != f"Bearer {self.key}":
                self._problem("no Bearer key")
            self._check_openai(body)
        else:
            if handler.path != "/v1/messages":
                self._problem(f"path {handler.path}")
            if self.key and h.get("x-api-key") != self.key:
                self._problem("no x-api-key")
            if h.get("anthropic-version") != "2023-06-01":
                self._problem(f"anthropic-version {h.get('anthropic-version')!r}")
            if "authorization" in h:
                self._problem("an Authorization header sent to Anthropic")
            self._check_anthropic(body)

    def _check_tools(self, tools, name_of, schema_of):
        for t in tools:
            name, schema = name_of(t), schema_of(t)
            if not isinstance(name, str) or not name:
                self._problem(f"a tool without a name: {t}")
            if not isinstance(schema, dict) or schema.get("type") != "object":
                self._problem(f"tool {name}: parameters are not an object schema")
            if name == "lisp_eval" and "program" not in schema.get("properties", {}):
                self._problem("lisp_eval without its program parameter")

    def _check_openai(self, body):
        if not isinstance(body.get("model"), str):
            self._problem("no model")
        msgs = body.get("messages", [])
        if not msgs or msgs[0].get("role") != "system":
            self._problem("the first message is not the system prompt")
        self._check_tools(body.get("tools", []), lambda t: t.get("function", {}).get("name"),
                          lambda t: t.get("function", {}).get("parameters"))
        for i, m in enumerate(msgs):
            calls = m.get("tool_calls") or []
            ids = [c.get("id") for c in calls]
            answers = [x.get("tool_call_id") for x in msgs[i + 1:i + 1 + len(ids)]]
            if ids and answers != ids:
                self._problem(f"messages[{i}]: tool calls {ids} answered by {answers}")
            for c in calls:
                if not isinstance(c.get("function", {}).get("arguments"), str):
                    self._problem(f"messages[{i}]: arguments are not a JSON string")

    def _check_anthropic(self, body):
        if not isinstance(body.get("model"), str) or not isinstance(body.get("max_tokens"), int):
            self._problem("no model or max_tokens")
        if not isinstance(body.get("system", ""), str):
            self._problem("system is not top-level text")
        self._check_tools(body.get("tools", []), lambda t: t.get("name"),
                          lambda t: t.get("input_schema"))
        msgs = body.get("messages", [])
        for i, m in enumerate(msgs):
            want = "user" if i % 2 == 0 else "assistant"
            if m.get("role") != want:
                self._problem(f"messages[{i}] is {m.get('role')}, expected {want} (alternation)")
            if m.get("role") == "assistant" and isinstance(m.get("content"), list):
                ids = [b["id"] for b in m["content"] if b.get("type") == "tool_use"]
                nxt = msgs[i + 1]["content"] if i + 1 < len(msgs) else []
                got = [b.get("tool_use_id") for b in nxt if isinstance(nxt, list)
                       and b.get("type") == "tool_result"]
                if ids and got != ids:
                    self._problem(f"messages[{i}]: tool_use {ids} answered by {got}")

    # ------------------------------------------------------------ answers

    def _render(self, answer, n):
        calls = answer.get("tool_calls", [])
        usage_in, usage_out = 100 + n, 10 + n
        if self.wire == "openai":
            msg = {"role": "assistant", "content": answer.get("content")}
            if calls:
                msg["tool_calls"] = [{"id": c["id"], "type": "function",
                                      "function": {"name": c["name"],
                                                   "arguments": json.dumps(c["arguments"])}}
                                     for c in calls]
            return {"id": f"chatcmpl-{n}", "object": "chat.completion", "model": "fake",
                    "choices": [{"index": 0, "message": msg,
                                 "finish_reason": "tool_calls" if calls else "stop"}],
                    "usage": {"prompt_tokens": usage_in, "completion_tokens": usage_out,
                              "total_tokens": usage_in + usage_out,
                              "prompt_tokens_details": {"cached_tokens": n}}}
        content = []
        if answer.get("content"):
            content.append({"type": "text", "text": answer["content"]})
        for c in calls:
            content.append({"type": "tool_use", "id": c["id"], "name": c["name"],
                            "input": c["arguments"]})
        return {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": "fake",
                "content": content, "stop_reason": "tool_use" if calls else "end_turn",
                "usage": {"input_tokens": usage_in, "output_tokens": usage_out,
                          "cache_read_input_tokens": n}}

    def _serve(self, handler, raw):
        with self.lock:
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
                self._problem("the body is not JSON")
            self.requests.append({"path": handler.path, "headers": dict(handler.headers),
                                  "body": body})
            if body is not None:
                self._check(handler, body)
            n = len(self.requests)
            step = self.script.pop(0) if self.script else {"status": 500, "body": "script over"}
        if step.get("delay"):
            time.sleep(step["delay"])
        status = step.get("status", 200)
        if "answer" in step:
            text = json.dumps(self._render(step["answer"], n))
        elif "raw_body" in step:
            text = step["raw_body"]
        else:
            b = step.get("body", "")
            text = b if isinstance(b, str) else json.dumps(b)
        data = text.encode()
        try:
            # Head and body in one write, as production servers send them
            # (with TCP_NODELAY): two small writes would wait on the
            # client's delayed ACK (Nagle), 40 ms per request.
            reason = http.server.BaseHTTPRequestHandler.responses.get(status, ("",))[0]
            head = [f"HTTP/1.1 {status} {reason}", "Content-Type: application/json",
                    f"Content-Length: {len(data)}"]
            head += [f"{k}: {v}" for k, v in step.get("headers", {}).items()]
            head = ("\r\n".join(head) + "\r\n\r\n").encode()
            handler.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if step.get("truncate"):
                handler.wfile.write(head + data[: len(data) // 2])
                handler.wfile.flush()
                handler.close_connection = True
                handler.connection.shutdown(socket.SHUT_RDWR)
                return
            handler.wfile.write(head + data)
        except (BrokenPipeError, ConnectionResetError):
            pass


def make_certificate(folder):
    """A self-signed certificate for localhost and 127.0.0.1, made now."""
    cert = os.path.join(folder, "cert.pem")
    key = os.path.join(folder, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    return cert, key
