#!/usr/bin/env python3
"""How much memory the mock's client state takes, and that its caps and reset bound it
(standard library only).

    growth.py --mock PATH [--threads 10000] [--runs 1000] [--uploads 90] [--upload-kib 8192]
              [--cycles 4]

Starts the mock (release build, default caps: 5,000 threads, 1,000 responses, 512 MiB of
uploads) and reads its RSS from /proc after each step:

  idle       after the first handshake: the anchor every other figure is a ratio to
  threads    after THREADS `call_perplexity_computer` calls (each a new thread; past 5,000 the
             oldest are evicted)
  runs       after RUNS background Agent API runs (`background: true, store: true`)
  uploads    after UPLOADS files of UPLOAD_KIB KiB each (past 512 MiB the oldest are evicted)
  reset      after `POST /_mock/reset`
  again      after filling every store again, reset in between, CYCLES - 1 times: freed memory
             is reused, so the peak levels off instead of growing with each cycle

and, from `GET /_mock/overview`'s `kept`, how many of each the mock holds and evicted. Only
127.0.0.1 is used; the mock is stopped at the end. Exits 1 if a store holds more than its cap.
"""

import argparse
import http.client
import json
import os
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import HEADERS, INIT, INITIALIZED, MCP_PATH, Failed, rss_mib, start, stop  # noqa: E402

AT_ONCE = 8
# alice may ask for 100 upload envelopes a rolling day and 500 a rolling week: the clock moves
# eight days on every 90, so neither window fills.
WINDOW_MS = 8 * 86_400_000
UPLOADS_PER_WINDOW = 90


class Client:
    """One keep-alive connection to the mock, with an MCP session once `initialize` is called."""

    def __init__(self, base):
        parts = urlsplit(base)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
        self.headers = dict(HEADERS)
        self.next_id = 1

    def request(self, method, path, body=None, headers=None, raw=None):
        data = raw if raw is not None else (json.dumps(body) if body is not None else None)
        self.conn.request(method, path, data, headers or self.headers)
        answer = self.conn.getresponse()
        payload = answer.read()
        if answer.status >= 300:
            raise Failed(f"{method} {path}: {answer.status} {payload[:300]!r}")
        return answer, payload

    def initialize(self):
        answer, _ = self.request("POST", MCP_PATH, INIT)
        self.headers["Mcp-Session-Id"] = answer.getheader("mcp-session-id")
        self.headers["MCP-Protocol-Version"] = INIT["params"]["protocolVersion"]
        self.request("POST", MCP_PATH, INITIALIZED)
        return self

    def tool(self, name, arguments):
        self.next_id += 1
        call = {"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call",
                "params": {"name": name, "arguments": arguments}}
        _, payload = self.request("POST", MCP_PATH, call)
        result = json.loads(payload)["result"]
        if result.get("isError"):
            raise Failed(f"{name}: {result}")
        return json.loads(result["content"][0]["text"])


def in_parallel(base, count, work):
    """Runs work(client, n) for n in 0..count on AT_ONCE connections with MCP sessions."""
    clients = [Client(base).initialize() for _ in range(AT_ONCE)]
    with ThreadPoolExecutor(AT_ONCE) as pool:
        # list() waits for every share and raises the first failure.
        list(pool.map(lambda k: [work(clients[k], n) for n in range(k, count, AT_ONCE)],
                      range(AT_ONCE)))


def new_thread(client, n):
    client.tool("call_perplexity_computer", {"message": f"Summarise report {n}"})


def background_run(client, n):
    body = {"preset": "medium", "input": f"What changed in release {n}?",
            "background": True, "store": True}
    client.request("POST", "/v1/agent", body,
                   {"Content-Type": "application/json", "Authorization": HEADERS["Authorization"]})


def upload(client, size, n):
    envelope = client.tool("create_attachment_upload",
                           {"filename": f"f{n}.bin", "mime_type": "application/octet-stream",
                            "size_bytes": size})
    boundary = uuid.uuid4().hex
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
             for k, v in envelope["upload_fields"].items()]
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="f{n}.bin"\r\n'
                 f"Content-Type: application/octet-stream\r\n\r\n".encode()
                 + b"x" * size + f"\r\n--{boundary}--\r\n".encode())
    path = urlsplit(envelope["upload_url"]).path
    client.request("POST", path, raw=b"".join(parts),
                   headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})


def fill(base, args, proc, figures):
    """Creates the threads, runs and uploads, appending (label, RSS) to figures after each."""
    in_parallel(base, args.threads, new_thread)
    figures.append((f"{args.threads} threads", rss_mib(proc)))
    in_parallel(base, args.runs, background_run)
    figures.append((f"{args.runs} background runs", rss_mib(proc)))
    size = args.upload_kib * 1024
    uploader = Client(base).initialize()
    for n in range(args.uploads):
        if n % UPLOADS_PER_WINDOW == 0:
            control(base, "POST", "/_mock/clock/advance", {"ms": WINDOW_MS})
        upload(uploader, size, n)
    figures.append((f"{args.uploads} uploads of {args.upload_kib} KiB", rss_mib(proc)))


def control(base, method, path, body=None):
    _, payload = Client(base).request(method, path, body, {"Content-Type": "application/json"})
    return json.loads(payload) if payload else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mock", required=True)
    parser.add_argument("--threads", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=1_000)
    parser.add_argument("--uploads", type=int, default=90)
    parser.add_argument("--upload-kib", type=int, default=8192)
    parser.add_argument("--cycles", type=int, default=4)
    args = parser.parse_args()

    proc, base = start([args.mock, "--listen", "127.0.0.1:0", "--clock", "driven",
                        "--no-journal"])
    try:
        Client(base).initialize()
        idle = rss_mib(proc)
        figures = [("idle", idle)]
        fill(base, args, proc, figures)
        kept = control(base, "GET", "/_mock/overview")["kept"]
        control(base, "POST", "/_mock/reset")
        figures.append(("after reset", rss_mib(proc)))
        after = control(base, "GET", "/_mock/overview")["kept"]
        # The allocator keeps freed pages for reuse rather than handing them to the system, so
        # RSS after a reset says little; filling every store again must not raise the peak.
        for cycle in range(2, args.cycles + 1):
            fill(base, args, proc, [])
            figures.append((f"filled again ({cycle} of {args.cycles})", rss_mib(proc)))
            control(base, "POST", "/_mock/reset")
    finally:
        stop(proc)

    for label, mib in figures:
        print(f"{label:32} RSS {mib:8.1f} MiB  {mib / idle:6.1f}x idle")
    print(f"kept: {json.dumps(kept)}")
    print(f"kept after reset: {json.dumps(after)}")
    over = [name for name, store in kept.items()
            if store.get("kept", 0) > store.get("max", float("inf"))
            or store.get("bytes", 0) > store.get("max_bytes", float("inf"))]
    if over:
        print(f"OVER THE CAP: {over}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failed as failure:
        print(f"FAILED: {failure}", file=sys.stderr)
        sys.exit(1)
