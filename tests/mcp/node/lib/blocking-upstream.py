# A minimal MCP server over stdio whose writes block (Python's, unlike
# Node's, do not go on in the background): `late {ms, bytes}` sleeps without
# reading stdin, then writes that much text and waits until it is read;
# `size {message}` answers the message's length. For the upstream test where
# a request larger than the pipe meets an answer larger than the pipe.
import json
import sys
import time


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    if not line.strip():
        continue
    msg = json.loads(line)
    if "id" not in msg:
        continue
    reply = lambda result: send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
    text = lambda t: {"content": [{"type": "text", "text": t}]}
    method = msg.get("method")
    if method == "initialize":
        reply({"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
               "serverInfo": {"name": "blocking", "version": "1"}})
    elif method == "tools/list":
        reply({"tools": [{"name": n, "inputSchema": {"type": "object"}} for n in ("late", "size")]})
    elif method == "tools/call":
        args = msg["params"].get("arguments") or {}
        if msg["params"]["name"] == "late":
            time.sleep(args.get("ms", 100) / 1000)
            reply(text("x" * args.get("bytes", 10)))
        else:
            reply(text(str(len(args.get("message", "")))))
