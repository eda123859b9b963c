"""Drive #timeout-then-complete with the real Python MCP SDK (`mcp` 2.3.0, legacy mode) and log
what it was told, for .ci/run's record-and-replay check.

Usage: python python_sdk_replay.py MCP_URL
  The bearer token comes from CONFORMANCE_BEARER_TOKEN (default: alice-dev-token); the log goes
  to PYTHON_SDK_LOG as a JSON list of [tool, event, task_status], consecutive repeats once (how
  many polls a run needs depends on the machine's speed, not on the scenario).

Run once through `mock-server record` in front of a mock, once against a mock playing the
recorded fixture: the two logs must be equal. Exits 0 when the task settled, 1 otherwise.
"""

from __future__ import annotations

import json
import os
import sys

import anyio
import httpx2
from mcp import Client, Implementation
from mcp.client.streamable_http import streamable_http_client

FIRST_MESSAGE = "#timeout-then-complete Summarize the top 5 stories on Hacker News right now"
MAX_READS = 40


def payload(result) -> dict:
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


async def run(url: str, token: str) -> list[list]:
    seen: list[list] = []

    def note(tool: str, answer: dict, status) -> None:
        entry = [tool, answer.get("event"), status]
        if not seen or seen[-1] != entry:
            seen.append(entry)

    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30.0, read=300.0))
    async with http:
        transport = streamable_http_client(url, http_client=http, terminate_on_close=True)
        async with Client(transport, mode="legacy",
                          client_info=Implementation(name="python-sdk-replay-check", version="1.0.0")) as client:
            first = payload(await client.call_tool("call_perplexity_computer", {"message": FIRST_MESSAGE}))
            note("call_perplexity_computer", first, first.get("task_status"))
            thread_id = first["thread_id"]
            for _ in range(MAX_READS):
                thread = payload(await client.call_tool("read_thread", {"thread_id": thread_id}))
                status = (thread.get("web_state") or {}).get("task_status")
                note("read_thread", thread, status)
                if status not in ("working", None):
                    return seen
                await anyio.sleep(0.2)
    raise SystemExit(f"the task did not settle after {MAX_READS} read_thread calls: {seen}")


def main() -> int:
    url = sys.argv[-1]
    token = os.environ.get("CONFORMANCE_BEARER_TOKEN", "alice-dev-token")
    seen = anyio.run(run, url, token)
    log = os.environ.get("PYTHON_SDK_LOG")
    if log:
        with open(log, "w") as out:
            json.dump(seen, out)
    print(f"python mcp 2.3.0 (legacy) was told: {seen}")
    return 0 if seen and seen[-1][2] == "completed" else 1


if __name__ == "__main__":
    sys.exit(main())
