"""The official Python SDK (`perplexityai` 0.46.1) against the mock's Sonar routes, unchanged.

Usage: PERPLEXITY_BASE_URL=http://127.0.0.1:PORT PERPLEXITY_API_KEY=alice-dev-token \
       python sonar_python_sdk.py
  Run the mock with a fast clock (e.g. --time-scale 1000) so answers and async jobs are quick.

Every call goes through a client with `_strict_response_validation=True`, so an answer the
SDK's own types (`perplexity.generated.api`) cannot parse fails here:
  1. `chat.completions.create`: a `CompletionResponseOutput` with citations, search_results,
     usage and cost; `return_images` / `return_related_questions` answered; a JSON-schema
     `response_format` answered with JSON that fits the schema;
  2. `chat.completions.create(stream=True)`: typed chunks, the first delta's role is
     `assistant`, the deltas add up to the last chunk's message, one `finish_reason`;
  3. `search.create`: an `ApiSearchResponseOutput` whose results honour `search_domain_filter`;
  4. `embeddings.create` and `contextualized_embeddings.create`: base64 vectors of the model's
     dimensions (`base64_int8`: one byte each), the same text twice the same vector;
  5. `async_.chat.completions.create / get / list`: CREATED at once, COMPLETED with a
     completion once the job ran; the idempotency key gives the same job back;
  6. errors: `#rate-limited` is retried by the SDK after Retry-After and then answered; an
     unknown model is a `BadRequestError`; a bad key an `AuthenticationError`.

Prints one summary line and exits 0, or prints what went wrong and exits 1.
"""

from __future__ import annotations

import base64
import json
import time

import perplexity
from perplexity import Perplexity
from perplexity.generated import api

from client_checks import CheckFailed, expect, run

POLL_DEADLINE_S = 60.0
QUESTION = [{"role": "user", "content": "What is new in solar power?"}]


def main() -> int:
    client = Perplexity(_strict_response_validation=True, max_retries=2)
    checks = 0

    # 1. a whole completion, with its extras
    answer = client.chat.completions.create(
        model="sonar",
        messages=QUESTION,
        return_images=True,
        return_related_questions=True,
    )
    expect(isinstance(answer, api.CompletionResponseOutput), f"type {type(answer)}")
    content = answer.choices[0].message.content
    expect(isinstance(content, str) and "[1]" in content, f"content {content!r}")
    expect(answer.citations and answer.search_results, "citations and search_results")
    expect(answer.citations[0] == answer.search_results[0].url, "citations follow search_results")
    expect(answer.usage.cost.total_cost > 0 and answer.usage.cost.request_cost, f"cost {answer.usage.cost}")
    extra = answer.model_extra or {}
    expect(len(extra.get("images", [])) == 3 and len(extra.get("related_questions", [])) == 3, f"extras {extra}")
    schema = {"type": "object", "properties": {"answer": {"type": "string"}, "year": {"type": "integer"}},
              "required": ["answer", "year"]}
    structured = client.chat.completions.create(
        model="sonar-pro",
        messages=QUESTION,
        response_format={"type": "json_schema", "json_schema": {"name": "reply", "schema": schema}},
    )
    parsed = json.loads(structured.choices[0].message.content)
    expect(isinstance(parsed["answer"], str) and isinstance(parsed["year"], int), f"structured {parsed}")
    checks += 1

    # 2. a stream
    chunks = list(client.chat.completions.create(model="sonar", messages=QUESTION, stream=True))
    expect(all(isinstance(c, api.CompletionResponseOutput) for c in chunks), "typed chunks")
    expect(chunks[0].choices[0].delta.role == "assistant", f"first delta {chunks[0].choices[0].delta}")
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    expect(text == chunks[-1].choices[0].message.content, "deltas add up to the message")
    finished = [c.choices[0].finish_reason for c in chunks if c.choices[0].finish_reason]
    expect(finished == ["stop"], f"finish reasons {finished}")
    checks += 1

    # 3. search
    found = client.search.create(query="solar power", max_results=4, search_domain_filter=["nature.com"])
    expect(isinstance(found, api.ApiSearchResponseOutput) and len(found.results) == 4, f"search {found}")
    expect(all("nature.com" in r.url for r in found.results), "the domain filter is honoured")
    checks += 1

    # 4. embeddings
    texts = ["solar panels on a roof", "solar panels on a roof", "a recipe for bread"]
    vectors = client.embeddings.create(model="pplx-embed-v1-0.6b", input=texts)
    raw = [base64.b64decode(d.embedding) for d in vectors.data]
    expect([len(r) for r in raw] == [1024] * 3, "1024 int8 dimensions")
    expect(raw[0] == raw[1] and raw[0] != raw[2], "deterministic per text")
    short = client.embeddings.create(model="pplx-embed-v1-4b", input="solar", dimensions=256,
                                     encoding_format="base64_binary")
    expect(len(base64.b64decode(short.data[0].embedding)) == 32, "256 bits")
    documents = client.contextualized_embeddings.create(
        model="pplx-embed-context-v1-0.6b", input=[["chunk one", "chunk two"], ["other"]])
    expect([len(d.data) for d in documents.data] == [2, 1], f"contextualized {documents}")
    checks += 1

    # 5. async
    job = client.async_.chat.completions.create(
        request={"model": "sonar-deep-research", "messages": QUESTION}, idempotency_key="sdk-check-1")
    expect(job.status in ("CREATED", "IN_PROGRESS"), f"submitted {job.status}")
    again = client.async_.chat.completions.create(
        request={"model": "sonar-deep-research", "messages": QUESTION}, idempotency_key="sdk-check-1")
    expect(again.id == job.id, "the idempotency key gives the same job")
    deadline = time.monotonic() + POLL_DEADLINE_S
    while job.status not in ("COMPLETED", "FAILED") and time.monotonic() < deadline:
        time.sleep(0.05)
        job = client.async_.chat.completions.get(job.id)
    expect(job.status == "COMPLETED" and job.response and job.response.choices, f"job {job.status}")
    listed = client.async_.chat.completions.list()
    expect(any(r.id == job.id for r in listed.requests), "the job is listed")
    checks += 1

    # 6. errors
    retried = client.chat.completions.create(
        model="sonar", messages=[{"role": "user", "content": "#rate-limited hello"}])
    expect(retried.choices[0].message.content.startswith("Answered after waiting"), "429 then success")
    try:
        client.chat.completions.create(model="gpt-nothing", messages=QUESTION)
        raise CheckFailed("an unknown model was accepted")
    except perplexity.BadRequestError as e:
        expect(e.body["error"]["type"] == "invalid_model", f"400 {e.body}")
    try:
        Perplexity(api_key="nope").search.create(query="x")
        raise CheckFailed("a bad key was accepted")
    except perplexity.AuthenticationError:
        pass
    checks += 1

    print(f"sonar python sdk {perplexity.__version__}: {checks} checks passed")
    return 0


if __name__ == "__main__":
    run(main, env=("PERPLEXITY_BASE_URL", "PERPLEXITY_API_KEY"))
