"""The `openai` Python SDK (2.54.0) against the mock's chat completions, only `base_url` changed.

Usage: python sonar_openai_sdk.py BASE_URL   (e.g. http://127.0.0.1:8080; the key is
  alice-dev-token). Run the mock with a fast clock (e.g. --time-scale 1000).

OpenAI-compatible code points `OpenAI(base_url=...)` at Perplexity; the SDK appends
`/chat/completions` to it. Checks:
  1. `chat.completions.create`: a `ChatCompletion` whose content cites `[1]`, with Perplexity's
     extra members (`citations`, `search_results`) kept in `model_extra`, and `usage`;
  2. `chat.completions.create(stream=True)`: typed `ChatCompletionChunk`s, the first delta's role
     `assistant`, the deltas assembled equal the answer of the same request made whole, one
     `finish_reason`; the stream ends without `[DONE]` and the SDK stops cleanly.
Prints one summary line and exits 0, or prints what went wrong and exits 1.
"""

from __future__ import annotations

import sys

import openai
from openai import OpenAI
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from client_checks import expect, run

QUESTION = [{"role": "user", "content": "#cited-answer What did Webb find?"}]


def main(base_url: str) -> int:
    client = OpenAI(base_url=base_url, api_key="alice-dev-token", max_retries=0)

    whole = client.chat.completions.create(model="sonar", messages=QUESTION)
    expect(isinstance(whole, ChatCompletion), f"type {type(whole)}")
    content = whole.choices[0].message.content or ""
    expect("[1]" in content and whole.choices[0].finish_reason == "stop", f"content {content!r}")
    extra = whole.model_extra or {}
    citations, results = extra.get("citations") or [], extra.get("search_results") or []
    expect(len(citations) == 3 and len(results) == 3, f"citations {citations}, search_results {results}")
    expect(citations[0] == results[0]["url"] and results[0]["title"], "citations follow search_results")
    expect(whole.usage and whole.usage.total_tokens == whole.usage.prompt_tokens + whole.usage.completion_tokens,
           f"usage {whole.usage}")

    chunks = list(client.chat.completions.create(model="sonar", messages=QUESTION, stream=True))
    expect(len(chunks) > 1 and all(isinstance(c, ChatCompletionChunk) for c in chunks), f"{len(chunks)} chunks")
    expect(chunks[0].choices[0].delta.role == "assistant", f"first delta {chunks[0].choices[0].delta}")
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    expect(text == content, f"streamed {text!r} is not the whole answer {content!r}")
    finished = [c.choices[0].finish_reason for c in chunks if c.choices[0].finish_reason]
    expect(finished == ["stop"], f"finish reasons {finished}")
    expect((chunks[-1].model_extra or {}).get("citations") == citations, "the last chunk carries the citations")

    print(f"sonar openai sdk {openai.__version__}: whole and streamed ({len(chunks)} chunks) completions checked")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    run(main, sys.argv[1])
