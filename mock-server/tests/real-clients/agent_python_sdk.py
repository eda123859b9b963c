"""The official Agent API Python SDK (`perplexityai` 0.46.1) against the mock, unchanged.

Usage: PERPLEXITY_BASE_URL=http://127.0.0.1:PORT PERPLEXITY_API_KEY=alice-dev-token \
       python agent_python_sdk.py
  Run the mock with a fast clock (e.g. --time-scale 1000) so background runs finish quickly.

What it checks, with `_strict_response_validation=True` wherever the mock's answer only uses
types the SDK knows (every check below), so a field or item the SDK cannot parse fails here:
  1. sync `responses.create`: completed, `output_text`, usage and cost parsed;
  2. the Connectors doc's Slack example: mcp_list_tools / tool_search_output / mcp_call / message
     parse as their typed classes;
  3. streaming `responses.create(stream=True)`: typed events, sequence numbers 0..n, one terminal
     `response.completed`, deltas that add up to the answer;
  4. `retrieve(id, stream=True, starting_after=N)` resumes after N;
  5. background: `queued` at once, `retrieve` until `completed`; a second run `cancel`led
     answers `cancelling` then ends `cancelled` with its error; cancelling it again is a
     `BadRequestError`;
  6. errors: 429 with retry-after-ms is retried by the SDK and then succeeds; an unknown id is a
     `NotFoundError`; a bad key is an `AuthenticationError`; a bad request a `BadRequestError`;
  7. `response_format` with a JSON schema: `output_text` parses as JSON fitting it and `text.format`
     echoes it; a path the mock does not serve is a `NotFoundError` with the API's error body.

Prints one summary line and exits 0, or prints what went wrong and exits 1.
"""

from __future__ import annotations

import json
import time

import perplexity
from perplexity import Perplexity
from perplexity.generated import api

from client_checks import CheckFailed, expect, run

MODEL = "openai/gpt-5.6-terra"
POLL_DEADLINE_S = 60.0


def wait_for(client: Perplexity, response_id: str, statuses: set[str]) -> object:
    deadline = time.monotonic() + POLL_DEADLINE_S
    while time.monotonic() < deadline:
        current = client.responses.retrieve(response_id)
        if current.status in statuses:
            return current
        time.sleep(0.05)
    raise CheckFailed(f"{response_id} never reached {statuses}")


def main() -> int:
    strict = Perplexity(_strict_response_validation=True)
    checks = 0

    # 1. sync
    r = strict.responses.create(model=MODEL, input="hi", tools=[{"type": "web_search"}])
    expect(r.status == "completed", f"sync status {r.status}")
    expect(r.object == "response" and r.id.startswith("resp_"), f"sync id/object {r.id} {r.object}")
    expect(r.output_text.startswith("Here is what I found about “hi”") and "[1]" in r.output_text,
           f"sync output_text {r.output_text!r}")
    expect(isinstance(r.output[0], api.SearchResultsOutputItemOutput), f"item 0 {type(r.output[0])}")
    expect(r.usage is not None and r.usage.total_tokens == r.usage.input_tokens + r.usage.output_tokens,
           f"usage {r.usage}")
    expect(r.usage.cost is not None and r.usage.cost.currency == "USD", f"cost {r.usage.cost}")
    checks += 1

    # 2. the Slack connector example
    r = strict.responses.create(
        model=MODEL,
        input="Find and summarize recent messages about AI in my Slack workspace.",
        max_steps=6,
        tools=[{"type": "connector", "id": "connector_slack", "server_label": "slack"}],
    )
    kinds = [type(item).__name__ for item in r.output]
    expect(kinds == ["McpListToolsOutputItemOutput", "ToolSearchOutputItemOutput",
                     "McpCallOutputItemOutput", "MessageOutputItemOutput"], f"slack items {kinds}")
    expect(r.output[0].connector_id == "connector_slack", "mcp_list_tools.connector_id")
    expect(r.output[2].error is None and r.output[2].name == "slack_search_public", "mcp_call")
    expect("summary" in r.output_text, f"slack answer {r.output_text!r}")
    checks += 1

    # 3. streaming
    events = list(strict.responses.create(model=MODEL, input="hi", stream=True,
                                          tools=[{"type": "web_search"}]))
    types = [e.type for e in events]
    expect(types[0] == "response.created" and types[1] == "response.in_progress", f"stream start {types[:2]}")
    expect(types[-1] == "response.completed", f"stream end {types[-1]}")
    expect([e.sequence_number for e in events] == list(range(len(events))), "sequence numbers")
    expect(isinstance(events[-1], api.ResponseCompletedEventOutput), f"terminal {type(events[-1])}")
    text = "".join(e.delta for e in events if isinstance(e, api.TextDeltaEventOutput))
    expect(text.startswith("Here is what I found about “hi”"), f"deltas {text!r}")
    expect(events[-1].response.usage is not None, "usage on response.completed")
    checks += 1

    # 4. resume
    response_id = events[0].response.id
    resumed = list(strict.responses.retrieve(response_id, stream=True, starting_after=5))
    expect([e.sequence_number for e in resumed] == list(range(6, len(events))),
           f"resume after 5: {[e.sequence_number for e in resumed]}")
    checks += 1

    # 5. background, retrieve, cancel
    body = dict(preset="medium", input="#background-research solid-state batteries",
                tools=[{"type": "web_search"}, {"type": "fetch_url"}], background=True, store=True)
    queued = strict.responses.create(**body)
    expect(queued.status == "queued" and queued.model == "medium", f"background {queued.status} {queued.model}")
    done = wait_for(strict, queued.id, {"completed"})
    expect(done.model == "openai/gpt-6-sol", f"served model {done.model}")
    expect(len(done.output) == 5 and done.output_text.startswith("Solid-state"), "research output")
    other = strict.responses.create(**body)
    wait_for(strict, other.id, {"in_progress"})
    ack = strict.responses.cancel(other.id)
    expect(ack.status == "cancelling" and ack.response_id == other.id, f"cancel ack {ack}")
    cancelled = wait_for(strict, other.id, {"cancelled"})
    expect(cancelled.error is not None and cancelled.error.type == "cancelled", f"cancel error {cancelled.error}")
    try:
        strict.responses.cancel(other.id)
        raise CheckFailed("cancelling a terminal run succeeded")
    except perplexity.BadRequestError as e:
        expect(e.status_code == 400, f"cancel terminal status {e.status_code}")
    checks += 1

    # 6. errors and retries
    retried = strict.responses.create(model=MODEL, input="#rate-limited")
    expect(retried.output_text == "Hello after the rate limit.", f"after retries {retried.output_text!r}")
    try:
        strict.responses.retrieve("resp_00000000-0000-0000-0000-000000000000")
        raise CheckFailed("unknown id found")
    except perplexity.NotFoundError as e:
        expect(e.body["error"]["type"] == "not_found", f"404 body {e.body}")
    try:
        Perplexity(api_key="wrong-key").responses.create(model=MODEL, input="hi")
        raise CheckFailed("bad key accepted")
    except perplexity.AuthenticationError as e:
        expect(e.status_code == 401, f"401 {e.status_code}")
    try:
        strict.responses.create(model=MODEL, input="hi", max_steps=0)
        raise CheckFailed("max_steps 0 accepted")
    except perplexity.BadRequestError as e:
        expect(e.body["error"]["message"] == "validation failed: max steps must be at least 1", f"400 {e.body}")
    checks += 1

    # 7. structured output and paths the mock does not serve
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
    structured = strict.responses.create(
        model=MODEL,
        input="What is new?",
        response_format={"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}},
    )
    expect(json.loads(structured.output_text)["answer"].startswith("Here is a short answer about"),
           f"structured {structured.output_text!r}")
    text = getattr(structured, "text", None)
    expect(isinstance(text, dict) and text["format"]["type"] == "json_schema", f"text.format {text!r}")
    try:
        strict.get("/v1/no-such-resource", cast_to=object)
        raise CheckFailed("an unserved path answered")
    except perplexity.NotFoundError as e:
        expect(e.body["error"]["type"] == "not_found", f"unserved 404 body {e.body}")
    checks += 1

    print(f"agent python sdk {perplexity.__version__}: {checks} checks passed")
    return 0


if __name__ == "__main__":
    run(main)
