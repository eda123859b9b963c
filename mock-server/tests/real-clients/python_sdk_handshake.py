"""Drive the mock with the real Python MCP SDK (`mcp` 2.3.0) in handshake (legacy) mode.

Usage: python python_sdk_handshake.py [...] MCP_URL
  The MCP URL is the last argument (the official conformance runner's launch contract).
  The bearer token comes from CONFORMANCE_BEARER_TOKEN (default: alice-dev-token).

What it checks, as a real client following the Computer documents would:
  1. `initialize` negotiates protocol version 2025-11-25;
  2. `tools/list` lists exactly the twelve Computer tools;
  3. `call_perplexity_computer` on the `#timeout-then-complete` scenario streams at least two
     progress notifications with messages, then returns a `timeout` event, still `working`,
     with a thread_id;
  4. `read_thread` on that thread (polled a bounded number of times) reaches
     `web_state.task_status == "completed"` with a non-empty transcript.

The mock runs on a fast clock in CI, so the polling here is short and bounded.
Prints one summary line and exits 0, or prints what went wrong and exits 1.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import anyio
import httpx2
from mcp import Client, Implementation
from mcp.client.streamable_http import streamable_http_client

from client_checks import CheckFailed

EXPECTED_PROTOCOL_VERSION = "2025-11-25"
EXPECTED_TOOLS = frozenset(
    {
        "call_perplexity_computer",
        "answer_question",
        "confirm_action_approve",
        "confirm_action_deny",
        "notify_connected",
        "cancel_task",
        "read_thread",
        "models_list",
        "list_thread_assets",
        "create_asset_download",
        "projects_list",
        "create_attachment_upload",
    }
)
FIRST_MESSAGE = "#timeout-then-complete Summarize the top 5 stories on Hacker News right now"
MAX_READ_THREAD_CALLS = 20
READ_THREAD_PAUSE_S = 0.2
# Generous ceilings so a hung mock fails the check instead of hanging CI.
REQUEST_TIMEOUT_S = 60.0
OVERALL_TIMEOUT_S = 120.0


def tool_json(tool: str, result: Any) -> dict[str, Any]:
    """The JSON object a Computer tool returns: its first text block, parsed."""
    if result.is_error:
        raise CheckFailed(f"{tool} returned isError=true: {result.model_dump(by_alias=True, exclude_none=True)}")
    text_blocks = [block for block in result.content if getattr(block, "type", None) == "text"]
    if not text_blocks:
        raise CheckFailed(f"{tool} returned no text content block: {result.content!r}")
    try:
        payload = json.loads(text_blocks[0].text)
    except json.JSONDecodeError as err:
        raise CheckFailed(f"{tool}: first text block is not JSON ({err}): {text_blocks[0].text[:300]!r}") from err
    if not isinstance(payload, dict):
        raise CheckFailed(f"{tool}: first text block is JSON but not an object: {payload!r}")
    structured = result.structured_content
    if structured is not None and structured != payload:
        raise CheckFailed(
            f"{tool}: structuredContent differs from the JSON in the first text block:\n"
            f"  structuredContent: {structured!r}\n  text block:        {payload!r}"
        )
    return payload


async def list_all_tool_names(client: Client) -> list[str]:
    names: list[str] = []
    cursor: str | None = None
    for _ in range(50):  # bounded: a paginator that never ends must not hang CI
        page = await client.list_tools(cursor=cursor)
        names.extend(tool.name for tool in page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return names
    raise CheckFailed("tools/list kept returning nextCursor after 50 pages")


async def run(url: str, token: str) -> str:
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"},
        timeout=httpx2.Timeout(30.0, read=300.0),  # the SDK's own defaults for MCP traffic
    )
    async with http:
        transport = streamable_http_client(url, http_client=http, terminate_on_close=True)
        async with Client(
            transport,
            mode="legacy",
            client_info=Implementation(name="python-sdk-handshake-check", version="1.0.0"),
            read_timeout_seconds=REQUEST_TIMEOUT_S,
        ) as client:
            # 1. Handshake
            if client.protocol_version != EXPECTED_PROTOCOL_VERSION:
                raise CheckFailed(
                    f"negotiated protocol version {client.protocol_version!r}, expected {EXPECTED_PROTOCOL_VERSION!r}"
                )

            # 2. Tool catalog
            names = await list_all_tool_names(client)
            duplicates = sorted({name for name in names if names.count(name) > 1})
            missing = sorted(EXPECTED_TOOLS - set(names))
            unexpected = sorted(set(names) - EXPECTED_TOOLS)
            if missing or unexpected or duplicates:
                raise CheckFailed(
                    f"tools/list does not list exactly the twelve Computer tools: missing={missing} "
                    f"unexpected={unexpected} duplicated={duplicates}"
                )

            # 3. A call that outlives the blocking window
            result = await client.call_tool(
                "call_perplexity_computer",
                {"message": FIRST_MESSAGE},
                progress_callback=on_progress,
            )
            await anyio.sleep(0.05)  # progress callbacks run as tasks; let any stragglers finish
            first = tool_json("call_perplexity_computer", result)
            with_message = [p for p in progress if p[2]]
            if len(with_message) < 2:
                raise CheckFailed(
                    f"expected >= 2 progress notifications with a non-empty message, got {len(progress)} "
                    f"notifications ({len(with_message)} with a message): {progress!r}"
                )
            if first.get("event") != "timeout":
                raise CheckFailed(f"call_perplexity_computer: expected event 'timeout', got {first!r}")
            if first.get("task_status") != "working":
                raise CheckFailed(f"call_perplexity_computer: expected task_status 'working', got {first!r}")
            thread_id = first.get("thread_id")
            if not isinstance(thread_id, str) or not thread_id:
                raise CheckFailed(f"call_perplexity_computer: no thread_id in {first!r}")

            # 4. Follow-up rule: after a timeout, read_thread until the task settles
            statuses: list[Any] = []
            for attempt in range(1, MAX_READ_THREAD_CALLS + 1):
                thread = tool_json("read_thread", await client.call_tool("read_thread", {"thread_id": thread_id}))
                if thread.get("thread_id") != thread_id:
                    raise CheckFailed(f"read_thread answered for another thread: {thread!r}")
                web_state = thread.get("web_state")
                task_status = web_state.get("task_status") if isinstance(web_state, dict) else None
                statuses.append(task_status)
                if task_status == "completed":
                    text = thread.get("text")
                    if not isinstance(text, str) or not text.strip():
                        raise CheckFailed(f"read_thread: task completed but the transcript text is empty: {thread!r}")
                    return (
                        f"python mcp 2.3.0 (legacy): negotiated {client.protocol_version}, {len(names)} tools, "
                        f"{len(progress)} progress notifications, timeout then completed after {attempt} "
                        f"read_thread call(s), thread {thread_id}"
                    )
                if task_status in ("failed", "cancelled"):
                    raise CheckFailed(f"read_thread: task ended {task_status!r} instead of completing: {thread!r}")
                await anyio.sleep(READ_THREAD_PAUSE_S)
            raise CheckFailed(
                f"read_thread: task not completed after {MAX_READ_THREAD_CALLS} calls; "
                f"web_state.task_status went {statuses!r}"
            )


def leaf_errors(err: BaseException) -> list[BaseException]:
    """The errors inside an exception group (the SDK's task groups wrap what the body raised)."""
    if isinstance(err, BaseExceptionGroup):
        return [leaf for inner in err.exceptions for leaf in leaf_errors(inner)]
    return [err]


def describe(err: BaseException) -> str:
    if isinstance(err, CheckFailed):
        return str(err)
    if isinstance(err, TimeoutError):
        return f"gave up after {OVERALL_TIMEOUT_S:.0f} s without finishing"
    return f"{type(err).__name__}: {err}"


async def main_async(url: str, token: str) -> int:
    try:
        with anyio.fail_after(OVERALL_TIMEOUT_S):
            summary = await run(url, token)
    except Exception as err:  # an SDK or transport error is a failure to report, not a crash
        leaves = leaf_errors(err)
        # A failed check is the story; other errors beside it are the teardown's echo of it.
        checks = [leaf for leaf in leaves if isinstance(leaf, CheckFailed)]
        for leaf in checks or leaves:
            print(f"FAIL python_sdk_handshake: {describe(leaf)}")
        return 1
    print(f"PASS {summary}")
    return 0


def main() -> int:
    if len(sys.argv) < 2:
        print("usage: python_sdk_handshake.py MCP_URL  (token from CONFORMANCE_BEARER_TOKEN)", file=sys.stderr)
        return 2
    url = sys.argv[-1]
    token = os.environ.get("CONFORMANCE_BEARER_TOKEN") or "alice-dev-token"
    return anyio.run(main_async, url, token)


if __name__ == "__main__":
    sys.exit(main())
