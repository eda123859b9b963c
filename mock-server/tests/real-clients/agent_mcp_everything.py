"""The Agent API `mcp` tool with a remote MCP server written by others.

Usage: python agent_mcp_everything.py AGENT_BASE_URL EVERYTHING_MCP_URL
  AGENT_BASE_URL: the running mock (`http://127.0.0.1:PORT`), key from PERPLEXITY_API_KEY
  (default: alice-dev-token); EVERYTHING_MCP_URL: `@modelcontextprotocol/server-everything`
  serving Streamable HTTP (`http://127.0.0.1:PORT/mcp`).

What it checks, with plain HTTP (stdlib only) against POST /v1/agent:
  1. discovery: the `mcp_list_tools` item lists the server's real tools (echo, get-sum, ...)
     with their `input_schema` and `annotations.read_only` from `readOnlyHint`;
  2. a real call: with allowed_tools ["get-sum"] the scripted model (#mcp-approval: it calls
     the first tool it may use, with arguments built from the tool's schema) gets the server's
     own answer on `mcp_call.output`, "The sum of 1 and 1 is 2.";
  3. the same with `echo`, whose output echoes the argument the mock built;
  4. a tool whose schema takes an enum (get-annotated-message) is called with one of its
     values, and the server's answer comes back on `mcp_call.output`.

Prints one summary line and exits 0, or prints what went wrong and exits 1.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request
from typing import Any

from client_checks import CheckFailed

TIMEOUT_S = 60


def create(base: str, body: dict[str, Any]) -> dict[str, Any]:
    key = os.environ.get("PERPLEXITY_API_KEY", "alice-dev-token")
    request = urllib.request.Request(
        f"{base}/v1/agent",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            return json.load(response)
    except urllib.error.HTTPError as error:
        raise CheckFailed(f"POST /v1/agent answered HTTP {error.code}: {error.read()[:600]!r}") from error


def items(response: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [i for i in response.get("output", []) if i.get("type") == kind]


def one(response: dict[str, Any], kind: str) -> dict[str, Any]:
    found = items(response, kind)
    if len(found) != 1:
        raise CheckFailed(f"expected one {kind} item, got {len(found)}: {json.dumps(response)[:800]}")
    return found[0]


def tool(url: str, allowed: list[str] | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "mcp", "server_label": "everything", "server_url": url}
    if allowed is not None:
        entry["allowed_tools"] = allowed
    return entry


def run(base: str, url: str) -> str:
    # 1. Discovery, for real.
    response = create(base, {"input": "#mcp-approval Echo hello", "tools": [tool(url)], "model": "openai/gpt-5.6-terra"})
    if response.get("status") != "completed":
        raise CheckFailed(f"status {response.get('status')!r}: {json.dumps(response)[:800]}")
    listed = one(response, "mcp_list_tools")
    if listed.get("server_label") != "everything":
        raise CheckFailed(f"mcp_list_tools.server_label is {listed.get('server_label')!r}")
    by_name = {t["name"]: t for t in listed.get("tools", [])}
    for expected in ("echo", "get-sum", "get-tiny-image"):
        if expected not in by_name:
            raise CheckFailed(f"server-everything's {expected} is not listed: {sorted(by_name)}")
    echo = by_name["echo"]
    if echo.get("annotations") != {"read_only": True}:
        raise CheckFailed(f"echo's annotations should come from readOnlyHint: {echo}")
    if echo.get("input_schema", {}).get("required") != ["message"]:
        raise CheckFailed(f"echo's input_schema is not the server's: {echo.get('input_schema')}")

    # 2. A real call and its real output.
    response = create(base, {"input": "#mcp-approval Add", "tools": [tool(url, ["get-sum"])], "model": "openai/gpt-5.6-terra"})
    call = one(response, "mcp_call")
    if call.get("name") != "get-sum" or call.get("error") is not None:
        raise CheckFailed(f"get-sum call: {call}")
    if call.get("output") != "The sum of 1 and 1 is 2.":
        raise CheckFailed(f"get-sum output is not the server's answer: {call.get('output')!r}")
    if json.loads(call["arguments"]) != {"a": 1, "b": 1}:
        raise CheckFailed(f"get-sum arguments: {call['arguments']!r}")

    # 3. Echo: the argument the mock built comes back from the server.
    response = create(base, {"input": "#mcp-approval Echo hello", "tools": [tool(url, ["echo"])], "model": "openai/gpt-5.6-terra"})
    call = one(response, "mcp_call")
    sent = json.loads(call["arguments"]).get("message")
    if call.get("output") != f"Echo: {sent}":
        raise CheckFailed(f"echo output {call.get('output')!r} does not echo {sent!r}")
    message = one(response, "message")["content"][0]["text"]
    if f"Echo: {sent}" not in message:
        raise CheckFailed(f"the answer does not use the tool output: {message!r}")

    # 4. Arguments that fit the schema: get-annotated-message requires messageType from an enum
    # (error, success, debug); the mock's model picks one of the enum's values, as a real model
    # does, and the server's answer for it comes back as the call's output.
    response = create(
        base,
        {"input": "#mcp-approval Annotate", "tools": [tool(url, ["get-annotated-message"])], "model": "openai/gpt-5.6-terra"},
    )
    if response.get("status") != "completed":
        raise CheckFailed(f"the run did not complete: {json.dumps(response)[:800]}")
    call = one(response, "mcp_call")
    kind = json.loads(call["arguments"]).get("messageType")
    if kind not in ("error", "success", "debug"):
        raise CheckFailed(f"messageType {kind!r} is not one of the schema's enum values: {call}")
    if call.get("error") is not None or not call.get("output"):
        raise CheckFailed(f"expected the server's answer on mcp_call: {call}")
    return f"listed {len(by_name)} tools; get-sum, echo and schema-fitting enum arguments via the mock's mcp tool"


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        summary = run(sys.argv[1].rstrip("/"), sys.argv[2])
    except CheckFailed as failure:
        print(f"agent mcp tool + server-everything: FAILED: {failure}", file=sys.stderr)
        return 1
    print(f"agent mcp tool + server-everything: OK ({summary})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
