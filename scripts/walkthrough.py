#!/usr/bin/env python3
"""Play the `timeout-then-complete` scenario against a running mock and say what happens.

Usage: python3 scripts/walkthrough.py [BASE_URL]     (default http://127.0.0.1:8080)

No host and nothing to install (Python's standard library only). It speaks MCP 2025-11-25 over
Streamable HTTP as a host would: initialize, a call to call_perplexity_computer that outlasts
the two-minute call window and answers `timeout`, then read_thread with the thread_id until the
task is completed. Rather than wait two real minutes, it moves the mock's virtual clock with
POST /_mock/clock/advance (which works whatever --time-scale the mock runs at).
Exits 0 when the scenario played as the Perplexity Computer document describes.
"""
import json
import sys
import threading
import time
import urllib.error
import urllib.request

BASE = (sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080").rstrip("/")
MCP = BASE + "/rest/computer/mcp"
TOKEN = "alice-dev-token"
MESSAGE = "#timeout-then-complete Summarize the top 5 stories on Hacker News right now"


def http(url, body=None, headers=None):
    """POST `body` as JSON (or GET when None); the answer's headers and decoded body."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers or {})
    if data is not None:
        request.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=600) as answer:
            text = answer.read().decode()
            return answer.headers, json.loads(text) if text else None
    except urllib.error.URLError as e:
        sys.exit(f"walkthrough: {url}: {e} (is the mock running? cargo run -p mock-server)")


class Session:
    """A handshake-era MCP session: the Mcp-Session-Id of initialize on every request."""

    def __init__(self):
        self.headers = {"accept": "application/json, text/event-stream",
                        "authorization": f"Bearer {TOKEN}"}
        self.next_id = 1
        answer_headers, answer = self.send("initialize", {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "walkthrough", "version": "1"}})
        self.headers["mcp-session-id"] = answer_headers["mcp-session-id"]
        self.headers["mcp-protocol-version"] = answer["result"]["protocolVersion"]
        http(MCP, {"jsonrpc": "2.0", "method": "notifications/initialized"}, self.headers)

    def send(self, method, params):
        self.next_id += 1
        return http(MCP, {"jsonrpc": "2.0", "id": self.next_id, "method": method,
                          "params": params}, self.headers)

    def call(self, tool, **arguments):
        _, answer = self.send("tools/call", {"name": tool, "arguments": arguments})
        if "error" in answer:
            sys.exit(f"walkthrough: {tool}: {answer['error']}")
        return answer["result"]["structuredContent"]


def clock():
    return http(BASE + "/_mock/clock")[1]["now"]


def advance(seconds):
    http(BASE + "/_mock/clock/advance", {"ms": int(seconds * 1000)})


def main():
    print(f"mock at {BASE}; virtual time {clock()}")
    session = Session()
    print(f"1. initialize: MCP {session.headers['mcp-protocol-version']}, "
          f"session {session.headers['mcp-session-id'][:8]}…, as alice ({TOKEN})")

    print(f'2. tools/call call_perplexity_computer {{"message": "{MESSAGE}"}}')
    answer = {}
    call = threading.Thread(target=lambda: answer.update(
        session.call("call_perplexity_computer", message=MESSAGE)))
    call.start()
    # The call waits up to two virtual minutes for the task to finish; move the clock 10 s at a
    # time until it answers (a real host would simply wait).
    waited = 0
    while call.is_alive() and waited < 600:
        time.sleep(0.05)
        advance(10)
        waited += 10
    call.join(timeout=30)
    print(f"   the call answered after about {waited} virtual seconds: event {answer.get('event')!r}, "
          f"task_status {answer.get('task_status')!r}")
    print(f"   Computer says: {answer.get('text', '')[:150]}…")
    if answer.get("event") != "timeout" or answer.get("task_status") != "working":
        sys.exit("walkthrough: expected event 'timeout' with task_status 'working'")
    thread = answer["thread_id"]

    print(f"3. read_thread {{\"thread_id\": \"{thread}\"}} (never call_perplexity_computer again to "
          "check: that would send a new message)")
    for attempt in range(1, 20):
        state = session.call("read_thread", thread_id=thread)
        web = state["web_state"]
        steps = web["entries"][-1]["steps"]
        done = [s["title"] for s in steps if s["status"] == "completed"]
        running = [s["title"] for s in steps if s["status"] != "completed"]
        print(f"   at {clock()}: task_status {web['task_status']!r}; steps done: {len(done)}"
              + (f"; now: {running[0]}" if running else ""))
        if web["task_status"] != "working":
            break
        print("   (30 virtual seconds later)")
        advance(30)
    if web["task_status"] != "completed":
        sys.exit(f"walkthrough: expected task_status 'completed', got {web['task_status']!r}")
    print("4. the transcript now holds the answer:")
    print("   " + state["text"].split("**Computer:** ", 1)[-1].replace("\n", "\n   "))
    print(f"Every exchange above is in the journal: {BASE}/_mock/journal")


if __name__ == "__main__":
    main()
