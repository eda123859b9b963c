"""Drive the mock with the real Python MCP SDK (`mcp` 2.3.0) in its default mode (`mode="auto"`).

Usage: python python_sdk_modern.py [...] MCP_URL
  The MCP URL is the last argument (the official conformance runner's launch contract).
  The bearer token comes from CONFORMANCE_BEARER_TOKEN (default: alice-dev-token).
  PYTHON_SDK_MODE=legacy runs the same checks in the handshake era (2025-11-25), where the
  elicitations travel as `elicitation/create` on the call's SSE stream instead of MRTR.

What it checks, as a real client following the Computer documents would:
  1. the `server/discover` probe negotiates the stateless protocol 2026-07-28 (no session);
  2. `tools/list` (which the SDK validates for `ttlMs`/`cacheScope`) lists the twelve tools;
  3. `call_perplexity_computer` on `#timeout-then-complete` streams progress notifications with
     messages on the call's own stream, then returns `timeout`, still `working`, with a thread_id;
  4. `read_thread` reaches `web_state.task_status == "completed"`;
  5. `#elicitation-question`: the question arrives through `elicitation_callback` as a form
     (MRTR `input_required`), the callback picks the first offered choice, and the retried call
     finishes with `complete`;
  6. `#elicitation-sign-in`: the sign-in arrives as a URL request; the callback "opens" the URL
     (a GET, as a browser would) and accepts, and the retried call finishes with `complete`.

Prints one summary line and exits 0, or prints what went wrong and exits 1.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import anyio
import httpx2
from mcp import Client, Implementation
from mcp.client.streamable_http import streamable_http_client
from mcp_types import ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult

# Shared checks with the handshake-era script (same directory).
from python_sdk_handshake import (
    EXPECTED_TOOLS,
    MAX_READ_THREAD_CALLS,
    OVERALL_TIMEOUT_S,
    READ_THREAD_PAUSE_S,
    REQUEST_TIMEOUT_S,
    CheckFailed,
    describe,
    leaf_errors,
    list_all_tool_names,
    tool_json,
)

MODE = os.environ.get("PYTHON_SDK_MODE") or "auto"
EXPECTED_PROTOCOL_VERSION = "2025-11-25" if MODE == "legacy" else "2026-07-28"
FIRST_MESSAGE = "#timeout-then-complete Summarize the top 5 stories on Hacker News right now"
QUESTION_MESSAGE = "#elicitation-question Build the sales report for last quarter"
SIGN_IN_MESSAGE = "#elicitation-sign-in Summarize my unread Slack messages"


async def run(url: str, token: str) -> str:
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    elicited: list[str] = []
    opened: list[int] = []

    async def on_elicit(_ctx: Any, params: Any) -> ElicitResult:
        if isinstance(params, ElicitRequestFormParams):
            elicited.append("form")
            content: dict[str, Any] = {}
            for name, prop in (params.requested_schema.get("properties") or {}).items():
                choices = prop.get("enum") or []
                content[name] = choices[0] if choices else "yes"
            return ElicitResult(action="accept", content=content)
        if isinstance(params, ElicitRequestURLParams):
            elicited.append("url")
            # The user finishes the sign-in on the page: a GET of the URL, as a browser would.
            async with httpx2.AsyncClient(timeout=30.0) as browser:
                page = await browser.get(params.url)
                opened.append(page.status_code)
            return ElicitResult(action="accept")
        raise CheckFailed(f"unexpected elicitation params: {params!r}")

    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"},
        timeout=httpx2.Timeout(30.0, read=300.0),
    )
    async with http:
        transport = streamable_http_client(url, http_client=http, terminate_on_close=True)
        async with Client(
            transport,
            client_info=Implementation(name="python-sdk-modern-check", version="1.0.0"),
            read_timeout_seconds=REQUEST_TIMEOUT_S,
            elicitation_callback=on_elicit,
            mode=MODE,
        ) as client:
            # 1. Discover (auto mode probes first and keeps 2026-07-28 when the server lists it)
            if client.protocol_version != EXPECTED_PROTOCOL_VERSION:
                raise CheckFailed(
                    f"negotiated protocol version {client.protocol_version!r}, expected {EXPECTED_PROTOCOL_VERSION!r}"
                )

            # 2. Tool catalog
            names = await list_all_tool_names(client)
            if sorted(names) != sorted(EXPECTED_TOOLS):
                raise CheckFailed(f"tools/list does not list exactly the twelve Computer tools: {names!r}")

            # 3. A call that outlives the blocking window, with progress on its own stream
            result = await client.call_tool(
                "call_perplexity_computer",
                {"message": FIRST_MESSAGE},
                progress_callback=on_progress,
            )
            await anyio.sleep(0.05)
            first = tool_json("call_perplexity_computer", result)
            with_message = [p for p in progress if p[2]]
            if len(with_message) < 2:
                raise CheckFailed(f"expected >= 2 progress notifications with a message, got {progress!r}")
            if first.get("event") != "timeout" or first.get("task_status") != "working":
                raise CheckFailed(f"call_perplexity_computer: expected a working timeout, got {first!r}")
            thread_id = first.get("thread_id")
            if not isinstance(thread_id, str) or not thread_id:
                raise CheckFailed(f"call_perplexity_computer: no thread_id in {first!r}")

            # 4. After a timeout, read_thread until the task settles
            statuses: list[Any] = []
            for attempt in range(1, MAX_READ_THREAD_CALLS + 1):
                thread = tool_json("read_thread", await client.call_tool("read_thread", {"thread_id": thread_id}))
                web_state = thread.get("web_state")
                task_status = web_state.get("task_status") if isinstance(web_state, dict) else None
                statuses.append(task_status)
                if task_status == "completed":
                    break
                if task_status in ("failed", "cancelled"):
                    raise CheckFailed(f"read_thread: task ended {task_status!r}: {thread!r}")
                await anyio.sleep(READ_THREAD_PAUSE_S)
            else:
                raise CheckFailed(f"read_thread: not completed after {MAX_READ_THREAD_CALLS} calls: {statuses!r}")

            # 5. A question answered through a form elicitation (MRTR retry done by the SDK)
            answered = tool_json(
                "call_perplexity_computer",
                await client.call_tool("call_perplexity_computer", {"message": QUESTION_MESSAGE}),
            )
            if elicited != ["form"] or answered.get("event") != "complete":
                raise CheckFailed(f"form elicitation: elicited {elicited!r}, then got {answered!r}")

            # 6. A sign-in finished on its page through a URL elicitation
            signed_in = tool_json(
                "call_perplexity_computer",
                await client.call_tool("call_perplexity_computer", {"message": SIGN_IN_MESSAGE}),
            )
            if elicited != ["form", "url"] or opened != [200] or signed_in.get("event") != "complete":
                raise CheckFailed(
                    f"url elicitation: elicited {elicited!r}, page statuses {opened!r}, then got {signed_in!r}"
                )
            return (
                f"python mcp 2.3.0 ({MODE}): negotiated {client.protocol_version}, {len(names)} tools, "
                f"{len(progress)} progress notifications, timeout then completed after {attempt} "
                f"read_thread call(s), form and url elicitations answered, thread {thread_id}"
            )


async def main_async(url: str, token: str) -> int:
    try:
        with anyio.fail_after(OVERALL_TIMEOUT_S):
            summary = await run(url, token)
    except Exception as err:  # an SDK or transport error is a failure to report, not a crash
        leaves = leaf_errors(err)
        checks = [leaf for leaf in leaves if isinstance(leaf, CheckFailed)]
        for leaf in checks or leaves:
            print(f"FAIL python_sdk_modern: {describe(leaf)}")
        return 1
    print(f"PASS {summary}")
    return 0


def main() -> int:
    if len(sys.argv) < 2:
        print("usage: python_sdk_modern.py MCP_URL  (token from CONFORMANCE_BEARER_TOKEN)", file=sys.stderr)
        return 2
    url = sys.argv[-1]
    token = os.environ.get("CONFORMANCE_BEARER_TOKEN") or "alice-dev-token"
    return anyio.run(main_async, url, token)


if __name__ == "__main__":
    sys.exit(main())
