"""LiteLLM (1.110.2) and its `perplexity/` provider against the mock: chat, search, embeddings.

Usage: LITELLM_LOCAL_MODEL_COST_MAP=True PERPLEXITY_API_BASE=http://127.0.0.1:PORT \
       PERPLEXITYAI_API_KEY=alice-dev-token python sonar_litellm.py
  Chat and search read PERPLEXITY_API_BASE; embeddings do not (they take `api_base=` only),
  so the script passes it there. LITELLM_LOCAL_MODEL_COST_MAP keeps LiteLLM from fetching its
  price list from the network when it is imported. Run the mock with a fast clock.

Checks:
  1. `completion(model="perplexity/sonar")`: a `ModelResponse` citing `[1]`, with the citations
     and search results LiteLLM passes through, and usage;
  2. `completion(..., stream=True)`: chunks whose deltas add up to the same answer;
  3. `search(search_provider="perplexity")`: a `SearchResponse` with the requested number of
     results inside the domain filter;
  4. `embedding(model="perplexity/pplx-embed-v1-0.6b")`: one vector per text, 1024 numbers
     each (LiteLLM decodes the base64 int8), the same text twice the same vector.
Prints one summary line and exits 0, or prints what went wrong and exits 1.
"""

from __future__ import annotations

import importlib.metadata
import os

import litellm

from client_checks import expect, run

QUESTION = [{"role": "user", "content": "#cited-answer What did Webb find?"}]


def main() -> int:
    whole = litellm.completion(model="perplexity/sonar", messages=QUESTION, num_retries=0)
    content = whole.choices[0].message.content or ""
    expect("[1]" in content, f"content {content!r}")
    citations = getattr(whole, "citations", None) or []
    results = getattr(whole, "search_results", None) or []
    expect(len(citations) == 3 and len(results) == 3, f"citations {citations}, search_results {results}")
    expect(whole.usage.total_tokens > 0, f"usage {whole.usage}")

    chunks = list(litellm.completion(model="perplexity/sonar", messages=QUESTION, stream=True, num_retries=0))
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    expect(len(chunks) > 1 and text == content, f"{len(chunks)} chunks: {text!r} is not {content!r}")

    found = litellm.search(query="solar power", search_provider="perplexity", max_results=4,
                           search_domain_filter=["nature.com"])
    expect(len(found.results) == 4, f"{len(found.results)} results")
    expect(all("nature.com" in r.url and r.title and r.snippet for r in found.results), f"results {found.results}")

    texts = ["solar panels on a roof", "solar panels on a roof", "a recipe for bread"]
    vectors = litellm.embedding(model="perplexity/pplx-embed-v1-0.6b", input=texts,
                                api_base=os.environ["PERPLEXITY_API_BASE"])
    embeddings = [d["embedding"] for d in vectors.data]
    expect([len(e) for e in embeddings] == [1024] * 3, f"dimensions {[len(e) for e in embeddings]}")
    expect(all(isinstance(x, (int, float)) for x in embeddings[0]), "decoded numbers")
    expect(embeddings[0] == embeddings[1] and embeddings[0] != embeddings[2], "deterministic per text")

    version = importlib.metadata.version("litellm")
    print(f"sonar litellm {version}: completion, stream ({len(chunks)} chunks), search, embedding checked")
    return 0


if __name__ == "__main__":
    run(main, env=("PERPLEXITY_API_BASE", "PERPLEXITYAI_API_KEY"))
