"""Conformance adapter for the official Agent API Python SDK (`perplexityai` 0.46.1).

Usage (the runner appends the MCP URL, which an Agent API client does not need):
    conformance --target "python agent_python_sdk.py [--naive]" --suite agent
The SDK reads PERPLEXITY_BASE_URL and PERPLEXITY_API_KEY from the environment the runner sets;
this file is the application around it: it asks the user channel (CONFORMANCE_USER_URL) what
the person says and decides, and follows the client rules of the MCP tool document (approval
continuations over several rounds, Zero Data Retention histories with each mcp_call sent back
unchanged, a pending call denied when the user stops it or moves on, "Always allow" kept per
server_url and tool and sent as a never filter), background mode (poll with GET until terminal,
cancel and confirm), stream resumption (`retrieve(id, stream=True, starting_after=N)`) and the
Connectors document (show an in-band AUTH_REQUIRED and other tool failures, do not retry them,
notice a connector that lists no tools, leave max_steps room for deferred discovery).
`--naive` answers a dropped stream by sending the request again (a retry wrapper around
`create`, the mistake the resume rule is about), to show the suite catches it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

import httpx
import perplexity
from perplexity import Perplexity

TERMINAL = {"completed", "failed", "cancelled", "incomplete"}
STREAM_TERMINAL = {"response.completed", "response.failed", "response.incomplete", "response.cancelled"}


class User:
    """The person behind the runner's user channel."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self.http = httpx.Client(timeout=30)

    def next_turn(self) -> dict[str, Any] | None:
        r = self.http.get(f"{self.url}/next-message")
        return None if r.status_code == 204 else r.json()

    def wants_to_stop(self) -> bool:
        r = self.http.get(f"{self.url}/interrupt")
        return r.status_code == 200 and r.json().get("action") == "cancel"

    def decides(self, request: Any) -> str:
        """`approve`, `always` (approve and Always allow), `deny`, or `undecided`."""
        arguments = json.loads(request.arguments or "null")
        answer = self.http.post(f"{self.url}/ask", json={
            "kind": "confirm",
            "message": f"Allow the {request.server_label} server to run {request.name} with {arguments}?",
            "server_label": request.server_label, "name": request.name, "arguments": arguments,
            "choices": ["allow once", "always allow", "deny"],
        }).json()
        action = answer.get("action")
        if action == "accept":
            return "always" if answer.get("always") else "approve"
        return "undecided" if action == "cancel" else "deny"

    def show(self, kind: str, text: str) -> None:
        self.http.post(f"{self.url}/show", json={"kind": kind, "text": text})

    def done(self) -> None:
        self.http.post(f"{self.url}/done", json={})


def of_type(response: Any, kind: str) -> list[Any]:
    return [item for item in response.output or [] if getattr(item, "type", None) == kind]


def follow_background(client: Perplexity, user: User, run: Any) -> Any:
    """Polls a background run with GET until it is terminal; cancels it when the user asks."""
    cancelled = False
    for _ in range(1500):
        if not cancelled and user.wants_to_stop():
            client.responses.cancel(run.id)  # only acknowledges: `cancelling`
            cancelled = True
        run = client.responses.retrieve(run.id)
        if run.status in TERMINAL:
            return run
        time.sleep(0.02)
    raise RuntimeError(f"{run.id} did not finish")


NAIVE = "--naive" in sys.argv[1:]


def stream(client: Perplexity, kwargs: dict[str, Any]) -> Any:
    """Streams a create; a dropped connection is resumed after the last sequence_number seen."""
    response_id, last, terminal = None, None, None
    events = client.responses.create(**kwargs, stream=True)
    for _ in range(4):
        try:
            for event in events:
                last = event.sequence_number
                if response_id is None and getattr(event, "response", None) is not None:
                    response_id = event.response.id
                if event.type in STREAM_TERMINAL:
                    terminal = event
        except (httpx.HTTPError, perplexity.APIConnectionError):
            pass  # the connection dropped: resume below
        if terminal is not None or response_id is None:
            break
        if NAIVE:
            response_id, last = None, None
            events = client.responses.create(**kwargs, stream=True)
            continue
        events = client.responses.retrieve(response_id, stream=True, starting_after=last)
    if terminal is None:
        raise RuntimeError(f"the stream of {response_id} never ended")
    if getattr(terminal, "response", None) is not None:
        return terminal.response
    return client.responses.retrieve(response_id)


class Conversation:
    """What the application keeps between requests."""

    def __init__(self) -> None:
        self.previous: str | None = None   # the last response id
        self.history: list[Any] = []       # Zero Data Retention: the items sent and received
        self.owed: list[dict[str, Any]] = []  # decisions to send with the next message
        self.always: set[tuple[str, str]] = set()  # Always allow: (server_url, tool name)


def with_policy(settings: dict[str, Any], conversation: Conversation) -> dict[str, Any]:
    """The turn's settings with Always allow choices as never filters (none when none chosen)
    and max_steps room for deferred connector tools."""
    settings = json.loads(json.dumps(settings))
    tools = settings.get("tools") or []
    if any(t.get("type") == "connector" or t.get("defer_loading") for t in tools):
        settings.setdefault("max_steps", 6)
    for tool in tools:
        names = sorted(n for url, n in conversation.always if tool.get("type") == "mcp" and url == tool.get("server_url"))
        if names:
            tool["require_approval"] = {"never": {"tool_names": names}}
    return settings


def decision(request: Any, approve: bool, reason: str) -> dict[str, Any]:
    item = {"type": "mcp_approval_response", "approval_request_id": request.id, "approve": approve}
    if not approve:
        item["reason"] = reason
    return item


def converse(client: Perplexity, user: User, turn: dict[str, Any], zdr: bool, conversation: Conversation) -> None:
    message = turn["message"]
    settings = with_policy(dict(turn.get("agent") or {}), conversation)
    user_item = {"type": "message", "role": "user", "content": message}
    kwargs = dict(settings)
    owed, conversation.owed = conversation.owed, []
    if zdr:
        first = not conversation.history and not owed
        conversation.history += owed + [user_item]
        kwargs["input"] = message if first else list(conversation.history)
    elif conversation.previous:
        # The decisions owed on undecided calls (denials), then the new message.
        kwargs.update(previous_response_id=conversation.previous, input=owed + [user_item])
    else:
        kwargs["input"] = message
    if kwargs.get("background"):
        kwargs["store"] = True  # a background run must be stored to be polled
    try:
        if kwargs.pop("stream", False):
            response = stream(client, kwargs)
        else:
            response = client.responses.create(**kwargs)
            if kwargs.get("background"):
                response = follow_background(client, user, response)
        for _ in range(8):
            conversation.previous = response.id
            if zdr:
                # Sent back as issued: approval requests and each mcp_call, approval_request_id included.
                conversation.history += [item.to_dict() for item in response.output or []
                                         if item.type in ("mcp_approval_request", "mcp_call")]
            for call in of_type(response, "mcp_call"):
                if call.error == "AUTH_REQUIRED":
                    user.show("error", f"The {call.server_label} connector needs reconnecting (AUTH_REQUIRED): "
                                       "ask a Project administrator to reconnect it in the API Console.")
                elif call.error:
                    user.show("error", f"The {call.server_label} tool {call.name} failed: {call.error}")
            for listing in of_type(response, "mcp_list_tools"):
                if not listing.tools and not getattr(listing, "error", None):
                    user.show("status", f"The {listing.server_label} connector lists no tools: it is probably not connected.")
            requests = of_type(response, "mcp_approval_request")
            if not requests:
                break
            decisions, undecided = [], False
            stop = user.wants_to_stop()
            for request in requests:
                if stop:
                    decisions.append(decision(request, False, "The user stopped this call."))
                    continue
                choice = user.decides(request)
                if choice == "always":
                    url = next((t.get("server_url") for t in settings.get("tools") or []
                                if t.get("type") == "mcp" and t.get("server_label") == request.server_label), None)
                    if url:
                        conversation.always.add((url, request.name))
                undecided |= choice == "undecided"
                reason = "The user moved on without deciding." if choice == "undecided" else "The user declined this call."
                decisions.append(decision(request, choice in ("approve", "always"), reason))
            if undecided:
                conversation.owed = decisions
                user.show("status", "waiting for your decision on the tool call")
                return
            base = {k: v for k, v in settings.items() if k not in ("stream", "background")}
            if zdr:
                # Zero Data Retention: no previous_response_id; the history goes back in input.
                conversation.history += decisions
                response = client.responses.create(**base, input=list(conversation.history))
            else:
                response = client.responses.create(**base, previous_response_id=response.id, input=decisions)
    except perplexity.APIStatusError as error:
        user.show("error", f"HTTP {error.status_code}: {error.body}")
        return
    if response.status == "completed":
        user.show("final", response.output_text)
    else:
        user.show("status", f"the run ended {response.status}")


def main() -> int:
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT", "{}"))
    if context.get("suite") != "agent":
        print(f"agent_python_sdk.py plays only the agent suite, not {context.get('suite')!r}", file=sys.stderr)
        return 2
    client = Perplexity()  # PERPLEXITY_BASE_URL and PERPLEXITY_API_KEY from the runner
    user = User(os.environ["CONFORMANCE_USER_URL"])
    zdr = bool(context.get("user", {}).get("zero_data_retention"))
    conversation = Conversation()
    while (turn := user.next_turn()) is not None:
        converse(client, user, turn, zdr, conversation)
    user.done()
    return 0


if __name__ == "__main__":
    sys.exit(main())
