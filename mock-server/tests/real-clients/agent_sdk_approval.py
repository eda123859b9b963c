"""An MCP approval continuation with the official Python SDK (perplexityai 0.46.1).

Usage: python agent_sdk_approval.py AGENT_BASE_URL EVERYTHING_MCP_URL
  AGENT_BASE_URL: the running mock, passed as the SDK's base_url (key from PERPLEXITY_API_KEY,
  default alice-dev-token); EVERYTHING_MCP_URL: `@modelcontextprotocol/server-everything` over
  Streamable HTTP, the remote `mcp` server.

What it checks, the way the MCP tool document's approval example runs:
  1. `responses.create` with require_approval "always" parses into an `mcp_approval_request`
     item (id, name, server_label, arguments) and no `mcp_call`;
  2. a continuation without a decision raises `BadRequestError` (HTTP 400, invalid_request);
  3. the continuation with `previous_response_id`, one `mcp_approval_response` approving it and
     the same tools again parses into an `mcp_call` whose `approval_request_id` matches and whose
     output is server-everything's own answer;
  4. a denial with a reason (plus a new user message) runs nothing and the answer carries the
     reason.

Prints one summary line and exits 0, or prints what went wrong and exits 1.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import perplexity
from perplexity import Perplexity

from client_checks import CheckFailed

MODEL = "openai/gpt-5.6-terra"


def of_type(response: Any, kind: str) -> list[Any]:
    return [item for item in response.output if getattr(item, "type", None) == kind]


def dump(response: Any) -> str:
    return json.dumps(response.model_dump(exclude_none=True))[:800]


def run(base: str, url: str) -> str:
    client = Perplexity(
        base_url=base,
        api_key=os.environ.get("PERPLEXITY_API_KEY", "alice-dev-token"),
        max_retries=0,
        timeout=60,
    )
    tools: list[dict[str, Any]] = [
        {
            "type": "mcp",
            "server_label": "everything",
            "server_url": url,
            "allowed_tools": ["get-sum"],
            "require_approval": "always",
        }
    ]

    # 1. The call waits for a decision.
    first = client.responses.create(model=MODEL, input="#mcp-approval Add one and one", tools=tools)
    requests = of_type(first, "mcp_approval_request")
    if len(requests) != 1 or of_type(first, "mcp_call"):
        raise CheckFailed(f"expected one mcp_approval_request and no mcp_call: {dump(first)}")
    request = requests[0]
    if request.name != "get-sum" or request.server_label != "everything":
        raise CheckFailed(f"approval request for the wrong call: {request}")
    if json.loads(request.arguments) != {"a": 1, "b": 1}:
        raise CheckFailed(f"approval request arguments: {request.arguments!r}")

    # 2. No decision: 400 before anything runs.
    try:
        client.responses.create(model=MODEL, previous_response_id=first.id, input="go on", tools=tools)
    except perplexity.BadRequestError as error:
        body = error.body if isinstance(error.body, dict) else {}
        detail = body.get("error", body)
        if detail.get("type") != "invalid_request" or request.id not in str(detail.get("message")):
            raise CheckFailed(f"missing decision: unexpected error body {error.body!r}") from error
    else:
        raise CheckFailed("a continuation without a decision was accepted")

    # 3. Approve: the call runs, matched to its request.
    approved = client.responses.create(
        model=MODEL,
        previous_response_id=first.id,
        input=[{"type": "mcp_approval_response", "approval_request_id": request.id, "approve": True}],
        tools=tools,
    )
    calls = of_type(approved, "mcp_call")
    if len(calls) != 1:
        raise CheckFailed(f"expected one mcp_call after approval: {dump(approved)}")
    call = calls[0]
    if call.approval_request_id != request.id:
        raise CheckFailed(f"mcp_call.approval_request_id {call.approval_request_id!r} != {request.id!r}")
    if call.output != "The sum of 1 and 1 is 2." or call.error is not None:
        raise CheckFailed(f"the approved call did not return server-everything's answer: {call}")
    if approved.status != "completed" or "The sum of 1 and 1 is 2." not in approved.output_text:
        raise CheckFailed(f"the answer does not use the tool's output: {approved.output_text!r}")

    # 4. Deny with a reason, moving on with a new message.
    second = client.responses.create(model=MODEL, input="#mcp-approval Add again", tools=tools)
    pending = of_type(second, "mcp_approval_request")
    if len(pending) != 1:
        raise CheckFailed(f"expected an approval request: {dump(second)}")
    denied = client.responses.create(
        model=MODEL,
        previous_response_id=second.id,
        input=[
            {"type": "mcp_approval_response", "approval_request_id": pending[0].id, "approve": False, "reason": "not today"},
            {"type": "message", "role": "user", "content": "Move on"},
        ],
        tools=tools,
    )
    if of_type(denied, "mcp_call"):
        raise CheckFailed(f"a denied call ran: {dump(denied)}")
    if "not today" not in denied.output_text:
        raise CheckFailed(f"the answer does not carry the denial's reason: {denied.output_text!r}")
    return f"approval request {request.id} approved (mcp_call output {call.output!r}), another denied"


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        summary = run(sys.argv[1].rstrip("/"), sys.argv[2])
    except (CheckFailed, perplexity.APIError) as failure:
        print(f"python SDK approval continuation: FAILED: {failure!r}", file=sys.stderr)
        return 1
    print(f"python SDK approval continuation: OK ({summary})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
