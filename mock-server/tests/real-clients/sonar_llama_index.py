"""llama-index's `Perplexity` LLM (`llama-index-llms-perplexity` 0.6.1) against the mock.

Usage: python sonar_llama_index.py BASE_URL   (e.g. http://127.0.0.1:8080; the key is
  alice-dev-token). `Perplexity(api_base=...)` is its base-URL option (no environment
  variable); it posts to `{api_base}/chat/completions`. Run the mock with a fast clock.

Checks:
  1. `complete`: the answer citing `[1]`, the raw answer's citations and search results;
  2. `chat`: an assistant `ChatMessage` with the same answer;
  3. `stream_complete`: deltas that add up to the same answer.
Prints one summary line and exits 0, or prints what went wrong and exits 1.
"""

from __future__ import annotations

import importlib.metadata
import sys

from llama_index.core.llms import ChatMessage, MessageRole
from llama_index.llms.perplexity import Perplexity

from client_checks import expect, run

QUESTION = "#cited-answer What did Webb find?"


def main(base_url: str) -> int:
    llm = Perplexity(model="sonar", api_key="alice-dev-token", api_base=base_url, max_retries=1)

    done = llm.complete(QUESTION)
    expect("[1]" in done.text, f"text {done.text!r}")
    raw = done.raw or {}
    expect(len(raw.get("citations", [])) == 3 and len(raw.get("search_results", [])) == 3, f"raw {raw}")

    reply = llm.chat([ChatMessage(role=MessageRole.USER, content=QUESTION)])
    expect(reply.message.role == MessageRole.ASSISTANT and reply.message.content == done.text,
           f"chat {reply.message!r}")

    deltas = list(llm.stream_complete(QUESTION))
    text = "".join(d.delta or "" for d in deltas)
    expect(len(deltas) > 1 and text == done.text, f"{len(deltas)} deltas: {text!r} is not {done.text!r}")
    expect(deltas[-1].text == done.text, "the last response's text is the whole answer")

    version = importlib.metadata.version("llama-index-llms-perplexity")
    print(f"sonar llama-index-llms-perplexity {version}: complete, chat, stream_complete ({len(deltas)} deltas) checked")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    run(main, sys.argv[1])
