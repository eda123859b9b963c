"""LangChain's `ChatPerplexity` (`langchain-perplexity` 1.4.2) against the mock's chat completions.

Usage: PERPLEXITY_BASE_URL=http://127.0.0.1:PORT PPLX_API_KEY=alice-dev-token \
       python sonar_langchain.py
  `ChatPerplexity` has no base-URL option: it builds the official `perplexityai` client, which
  reads PERPLEXITY_BASE_URL. Run the mock with a fast clock (e.g. --time-scale 1000).

Checks:
  1. `invoke`: an `AIMessage` citing `[1]`, with the citations and search results LangChain
     copies into `additional_kwargs`, and `usage_metadata`;
  2. `stream`: `AIMessageChunk`s that add up to the same answer, the citations on a chunk;
  3. `with_structured_output(Model)`: the JSON-schema `response_format` answered with JSON that
     parses into the pydantic model (every field of the right type).
Prints one summary line and exits 0, or prints what went wrong and exits 1.
"""

from __future__ import annotations

import importlib.metadata

from langchain_core.messages import AIMessage
from langchain_perplexity import ChatPerplexity
from pydantic import BaseModel

from client_checks import expect, run

QUESTION = "#cited-answer What did Webb find?"


class Finding(BaseModel):
    """What `with_structured_output` asks for."""

    summary: str
    year: int
    confident: bool


def main() -> int:
    chat = ChatPerplexity(model="sonar", temperature=0, max_retries=0)

    answer = chat.invoke(QUESTION)
    expect(isinstance(answer, AIMessage), f"type {type(answer)}")
    expect(isinstance(answer.content, str) and "[1]" in answer.content, f"content {answer.content!r}")
    kwargs = answer.additional_kwargs
    expect(len(kwargs.get("citations", [])) == 3, f"citations {kwargs.get('citations')}")
    results = kwargs.get("search_results", [])
    expect(len(results) == 3 and results[0].url == kwargs["citations"][0], f"search_results {results}")
    usage = answer.usage_metadata or {}
    expect(usage.get("total_tokens", 0) > 0, f"usage_metadata {usage}")

    chunks = list(chat.stream(QUESTION))
    expect(len(chunks) > 1, f"{len(chunks)} chunks")
    text = "".join(c.content for c in chunks if isinstance(c.content, str))
    expect(text == answer.content, f"streamed {text!r} is not the whole answer {answer.content!r}")
    expect(any(c.additional_kwargs.get("citations") for c in chunks), "no chunk carries the citations")

    structured = ChatPerplexity(model="sonar-pro", temperature=0, max_retries=0).with_structured_output(Finding)
    finding = structured.invoke("What did Webb find?")
    expect(isinstance(finding, Finding), f"structured {finding!r}")
    expect(finding.summary and isinstance(finding.year, int), f"structured {finding!r}")

    version = importlib.metadata.version("langchain-perplexity")
    print(f"sonar langchain-perplexity {version}: invoke, stream ({len(chunks)} chunks), with_structured_output checked")
    return 0


if __name__ == "__main__":
    run(main, env=("PERPLEXITY_BASE_URL", "PPLX_API_KEY"))
