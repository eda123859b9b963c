"""A custom connector whose MCP server speaks the legacy HTTP+SSE transport.

Usage: python agent_connector_sse.py AGENT_BASE_URL EVERYTHING_SSE_URL
  AGENT_BASE_URL: a mock started with a world file that saves `connector_everything` for alice,
  pointing at EVERYTHING_SSE_URL: `@modelcontextprotocol/server-everything` run with its `sse`
  transport (`GET /sse`, `POST /message`). Key from PERPLEXITY_API_KEY (default alice-dev-token).

What it checks (Connectors: "Custom connectors support Streamable HTTP and SSE"; MCP tool:
"Streamable HTTP only"):
  1. `type: "connector"` with that id: `mcp_list_tools` (with `connector_id`) lists the server's
     tools, the deferred catalog is searched (`tool_search_output`), and `mcp_call` carries the
     server's own answer, "The sum of 1 and 1 is 2.";
  2. the same URL as an `mcp` tool fails discovery: HTTP 424 `external_connector_error`.

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


def create(base: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    key = os.environ.get("PERPLEXITY_API_KEY", "alice-dev-token")
    request = urllib.request.Request(
        f"{base}/v1/agent",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def one(response: dict[str, Any], kind: str) -> dict[str, Any]:
    found = [i for i in response.get("output", []) if i.get("type") == kind]
    if len(found) != 1:
        raise CheckFailed(f"expected one {kind} item, got {len(found)}: {json.dumps(response)[:800]}")
    return found[0]


def run(base: str, sse_url: str) -> str:
    connector = {"type": "connector", "id": "connector_everything", "server_label": "everything", "allowed_tools": ["get-sum"]}
    status, response = create(base, {"model": "openai/gpt-5.6-terra", "input": "#mcp-approval Add", "max_steps": 6, "tools": [connector]})
    if status != 200 or response.get("status") != "completed":
        raise CheckFailed(f"HTTP {status}: {json.dumps(response)[:800]}")
    types = [i.get("type") for i in response["output"]]
    if types != ["mcp_list_tools", "tool_search_output", "mcp_call", "message"]:
        raise CheckFailed(f"unexpected items {types}")
    listed = one(response, "mcp_list_tools")
    if listed.get("connector_id") != "connector_everything" or [t["name"] for t in listed["tools"]] != ["get-sum"]:
        raise CheckFailed(f"mcp_list_tools: {listed}")
    found = [t["name"] for ns in one(response, "tool_search_output")["tools"] for t in ns["tools"]]
    if "get-sum" not in found:
        raise CheckFailed(f"the catalog search did not find get-sum: {found}")
    call = one(response, "mcp_call")
    if call.get("connector_id") != "connector_everything" or call.get("output") != "The sum of 1 and 1 is 2.":
        raise CheckFailed(f"mcp_call: {call}")

    mcp = {"type": "mcp", "server_label": "everything", "server_url": sse_url}
    status, response = create(base, {"model": "openai/gpt-5.6-terra", "input": "#mcp-approval Add", "tools": [mcp]})
    error = response.get("error", {})
    if status != 424 or error.get("type") != "external_connector_error" or sse_url not in error.get("message", ""):
        raise CheckFailed(f"an SSE-only server as an mcp tool: HTTP {status} {json.dumps(response)[:600]}")
    return "connector listed, searched and called get-sum over legacy SSE; the mcp tool refused it with 424"


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        summary = run(sys.argv[1].rstrip("/"), sys.argv[2])
    except CheckFailed as failure:
        print(f"custom connector over legacy SSE: FAILED: {failure}", file=sys.stderr)
        return 1
    print(f"custom connector over legacy SSE: OK ({summary})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
