"""Upload a file the documented way with a plain HTTP client, following only the envelope.

Usage: python python_upload.py [...] MCP_URL
  The MCP URL is the last argument; the bearer token comes from CONFORMANCE_BEARER_TOKEN
  (default: alice-dev-token).

What it checks, as a client following "File Uploads" would:
  1. `create_attachment_upload` (through the real Python MCP SDK) returns `attachment_url`,
     `upload_url` and `upload_fields`;
  2. an unauthenticated multipart/form-data POST to `upload_url` with every `upload_fields` key
     plus a `file` part (httpx2, nothing mock-specific) answers 204;
  3. the same POST with a tampered `policy` is refused with an S3-style XML error;
  4. `call_perplexity_computer` with the `attachment_url` in `attachment_urls` completes, and the
     file is readable at `attachment_url` with the account's token (and not without it).

Prints one summary line and exits 0, or prints what went wrong and exits 1.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import anyio
import httpx2
from mcp import Client, Implementation
from mcp.client.streamable_http import streamable_http_client

from client_checks import CheckFailed

CONTENT = b"quarter,revenue\nQ1,120\nQ2,135\n"
OVERALL_TIMEOUT_S = 120.0


def tool_json(tool: str, result: Any) -> dict[str, Any]:
    if result.is_error:
        raise CheckFailed(f"{tool} returned isError=true: {result.model_dump(by_alias=True, exclude_none=True)}")
    text = next((b.text for b in result.content if getattr(b, "type", None) == "text"), None)
    if text is None:
        raise CheckFailed(f"{tool} returned no text block: {result.content!r}")
    payload = json.loads(text)
    if not isinstance(payload, dict):
        raise CheckFailed(f"{tool}: not a JSON object: {payload!r}")
    return payload


async def run(url: str, token: str) -> str:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30.0, read=300.0))
    async with http:
        transport = streamable_http_client(url, http_client=http, terminate_on_close=True)
        async with Client(
            transport,
            mode="legacy",
            client_info=Implementation(name="python-upload-check", version="1.0.0"),
            read_timeout_seconds=60.0,
        ) as client:
            envelope = tool_json(
                "create_attachment_upload",
                await client.call_tool(
                    "create_attachment_upload",
                    {"filename": "revenue.csv", "mime_type": "text/csv", "size_bytes": len(CONTENT)},
                ),
            )
            for field in ("attachment_url", "upload_url", "upload_fields"):
                if field not in envelope:
                    raise CheckFailed(f"the envelope has no {field}: {envelope!r}")
            fields: dict[str, str] = envelope["upload_fields"]
            # A plain client with no Authorization header: the envelope is the only credential.
            async with httpx2.AsyncClient(timeout=30.0) as plain:
                tampered = dict(fields, policy=fields.get("policy", "") + "x")
                refused = await plain.post(
                    envelope["upload_url"], data=tampered, files={"file": ("revenue.csv", CONTENT, "text/csv")}
                )
                if refused.status_code != 403 or "<Error>" not in refused.text:
                    raise CheckFailed(
                        f"a tampered policy was not refused S3-style: {refused.status_code} {refused.text[:300]!r}"
                    )
                posted = await plain.post(
                    envelope["upload_url"], data=fields, files={"file": ("revenue.csv", CONTENT, "text/csv")}
                )
                if posted.status_code != 204:
                    raise CheckFailed(f"the upload POST answered {posted.status_code}, not 204: {posted.text[:300]!r}")
                anonymous = await plain.get(envelope["attachment_url"])
                if anonymous.status_code != 403 or CONTENT in anonymous.content:
                    raise CheckFailed(f"attachment_url served the file without a token: {anonymous.status_code}")
                # The stored bytes go to the account that uploaded them only.
                stored = await http.get(envelope["attachment_url"])
                if stored.content != CONTENT:
                    raise CheckFailed(f"attachment_url does not serve the uploaded bytes: {stored.status_code}")
            done = tool_json(
                "call_perplexity_computer",
                await client.call_tool(
                    "call_perplexity_computer",
                    {"message": "#complete Summarize this file", "attachment_urls": [envelope["attachment_url"]]},
                ),
            )
            if done.get("event") != "complete":
                raise CheckFailed(f"call_perplexity_computer with the attachment did not complete: {done!r}")
            return (
                f"plain httpx2 multipart upload: 204 for {len(CONTENT)} bytes, tampered policy refused (403), "
                f"attached to thread {done.get('thread_id')}"
            )


def leaf_errors(err: BaseException) -> list[BaseException]:
    if isinstance(err, BaseExceptionGroup):
        return [leaf for inner in err.exceptions for leaf in leaf_errors(inner)]
    return [err]


async def main_async(url: str, token: str) -> int:
    try:
        with anyio.fail_after(OVERALL_TIMEOUT_S):
            summary = await run(url, token)
    except Exception as err:  # a transport error is a failure to report, not a crash
        leaves = leaf_errors(err)
        checks = [leaf for leaf in leaves if isinstance(leaf, CheckFailed)]
        for leaf in checks or leaves:
            print(f"FAIL python_upload: {leaf if isinstance(leaf, CheckFailed) else f'{type(leaf).__name__}: {leaf}'}")
        return 1
    print(f"PASS {summary}")
    return 0


def main() -> int:
    if len(sys.argv) < 2:
        print("usage: python_upload.py MCP_URL  (token from CONFORMANCE_BEARER_TOKEN)", file=sys.stderr)
        return 2
    token = os.environ.get("CONFORMANCE_BEARER_TOKEN") or "alice-dev-token"
    return anyio.run(main_async, sys.argv[-1], token)


if __name__ == "__main__":
    sys.exit(main())
