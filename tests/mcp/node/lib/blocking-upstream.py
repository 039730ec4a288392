# A minimal MCP server over stdio whose writes block (Python's, unlike
# Node's, do not go on in the background): `late {ms, bytes}` sleeps without
# reading stdin, then writes that much text and waits until it is read;
# `size {message}` answers the message's length; `ask` sends the client a
# ping request and answers only after the client's reply to it; `never` is
# never answered (the server goes on with other requests). For the upstream
# tests where requests and answers are larger than the pipe, and where a
# call's reading waits on a busy lane.
import json
import sys
import time


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def handle(msg):
    reply = lambda result: send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
    text = lambda t: {"content": [{"type": "text", "text": t}]}
    method = msg.get("method")
    if method == "initialize":
        reply({"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
               "serverInfo": {"name": "blocking", "version": "1"}})
    elif method == "tools/list":
        reply({"tools": [{"name": n, "inputSchema": {"type": "object"}} for n in ("late", "size", "ask", "never")]})
    elif method == "tools/call":
        args = msg["params"].get("arguments") or {}
        name = msg["params"]["name"]
        if name == "late":
            time.sleep(args.get("ms", 100) / 1000)
            reply(text("x" * args.get("bytes", 10)))
        elif name == "never":
            pass
        elif name == "ask":
            time.sleep(0.2)
            send({"jsonrpc": "2.0", "id": "s1", "method": "ping"})
            for line in sys.stdin:
                answer = json.loads(line)
                if answer.get("id") == "s1" and "method" not in answer:
                    break
                if "id" in answer:
                    handle(answer)
            reply(text("asked"))
        else:
            reply(text(str(len(args.get("message", "")))))


for line in sys.stdin:
    if line.strip():
        msg = json.loads(line)
        if "id" in msg and "method" in msg:
            handle(msg)
