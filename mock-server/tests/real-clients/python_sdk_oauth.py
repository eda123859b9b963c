"""Sign in to the mock with the real Python MCP SDK's OAuth (`mcp` 2.3.0), then call tools.

Usage: python python_sdk_oauth.py [...] MCP_URL
  The MCP URL is the last argument (the official conformance runner's launch contract).
  The mock must run with `--auto-consent alice`: the "browser" step is a GET of the
  authorization URL with redirects off, which the mock answers with the redirect at once.

What it checks, as an MCP host that was given nothing but the URL would see it:
  1. the SDK's `OAuthClientProvider` discovers the authorization server from the 401 challenge,
     registers itself, sends the person to `/oauth/authorize` with PKCE S256, `state` and
     `resource`, and the mock redirects with `code`, the same `state` and `iss`;
  2. the SDK exchanges the code and every MCP request then carries the issued bearer token
     (not a dev token);
  3. `models_list` answers as alice (paid plan: four modes), so the token is bound to the
     account the consent named;
  4. `call_perplexity_computer` on the `#complete` scenario completes with a thread_id.

Prints one summary line and exits 0, or prints what went wrong and exits 1.
"""

from __future__ import annotations

import json
import sys
from typing import Any
from urllib.parse import parse_qs, urlparse

import anyio
import httpx2
from mcp import Client, Implementation
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from client_checks import CheckFailed

REDIRECT_URI = "http://127.0.0.1:9/callback"  # never contacted: the redirect is read, not followed
OVERALL_TIMEOUT_S = 120.0
REQUEST_TIMEOUT_S = 60.0


class InMemoryStorage(TokenStorage):
    """Tokens and client registration kept for the life of the run."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


def tool_json(tool: str, result: Any) -> dict[str, Any]:
    """The JSON object a Computer tool returns: its first text block, parsed."""
    if result.is_error:
        raise CheckFailed(f"{tool} returned isError=true: {result.model_dump(by_alias=True, exclude_none=True)}")
    text_blocks = [block for block in result.content if getattr(block, "type", None) == "text"]
    if not text_blocks:
        raise CheckFailed(f"{tool} returned no text content block: {result.content!r}")
    try:
        payload = json.loads(text_blocks[0].text)
    except json.JSONDecodeError as err:
        raise CheckFailed(f"{tool}: first text block is not JSON ({err}): {text_blocks[0].text[:300]!r}") from err
    if not isinstance(payload, dict):
        raise CheckFailed(f"{tool}: first text block is JSON but not an object: {payload!r}")
    return payload


async def run(url: str) -> str:
    captured: dict[str, str] = {}
    authorize_urls: list[str] = []

    async def redirect_handler(authorization_url: str) -> None:
        """The "open the browser" step: GET the URL and read where the mock redirects."""
        authorize_urls.append(authorization_url)
        query = parse_qs(urlparse(authorization_url).query)
        for required in ("code_challenge", "state", "resource", "client_id", "redirect_uri"):
            if required not in query:
                raise CheckFailed(f"the SDK's authorization URL has no {required}: {authorization_url}")
        if query.get("code_challenge_method") != ["S256"]:
            raise CheckFailed(f"the SDK did not ask for S256: {authorization_url}")
        async with httpx2.AsyncClient() as browser:
            response = await browser.get(authorization_url, follow_redirects=False)
        location = response.headers.get("location")
        if response.status_code != 302 or not location:
            raise CheckFailed(
                f"/oauth/authorize answered {response.status_code} without a redirect (is the mock "
                f"running with --auto-consent alice?): {response.text[:300]!r}"
            )
        params = {k: v[0] for k, v in parse_qs(urlparse(location).query).items()}
        if "code" not in params:
            raise CheckFailed(f"the redirect carries no code: {location}")
        if params.get("state") != query["state"][0]:
            raise CheckFailed(f"the redirect's state {params.get('state')!r} is not the one sent")
        captured.update(params)

    async def callback_handler() -> AuthorizationCodeResult:
        return AuthorizationCodeResult(code=captured["code"], state=captured.get("state"), iss=captured.get("iss"))

    storage = InMemoryStorage()
    auth = OAuthClientProvider(
        url,
        OAuthClientMetadata(
            client_name="python-sdk-oauth-check",
            redirect_uris=[REDIRECT_URI],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage,
        redirect_handler,
        callback_handler,
    )
    http = httpx2.AsyncClient(auth=auth, timeout=httpx2.Timeout(30.0, read=300.0))
    async with http:
        transport = streamable_http_client(url, http_client=http, terminate_on_close=True)
        async with Client(
            transport,
            mode="legacy",
            client_info=Implementation(name="python-sdk-oauth-check", version="1.0.0"),
            read_timeout_seconds=REQUEST_TIMEOUT_S,
        ) as client:
            if len(authorize_urls) != 1:
                raise CheckFailed(f"expected one trip to /oauth/authorize, saw {len(authorize_urls)}")
            if "iss" not in captured:
                raise CheckFailed("the redirect has no iss, though the metadata promises it (RFC 9207)")
            tokens = storage.tokens
            if tokens is None or not tokens.access_token:
                raise CheckFailed("the SDK stored no access token after signing in")
            if tokens.access_token.endswith("-dev-token"):
                raise CheckFailed("the SDK ended up with a dev token, not an OAuth-issued one")
            if not tokens.refresh_token:
                raise CheckFailed("the token response had no refresh_token")

            models = tool_json("models_list", await client.call_tool("models_list", {}))
            modes = models.get("modes")
            if not isinstance(modes, list) or len(modes) != 4:
                raise CheckFailed(f"models_list does not look like alice's paid plan (4 modes): {models!r}")

            done = tool_json(
                "call_perplexity_computer",
                await client.call_tool("call_perplexity_computer", {"message": "#complete Hello over OAuth"}),
            )
            if done.get("event") != "complete" or not done.get("thread_id"):
                raise CheckFailed(f"call_perplexity_computer did not complete: {done!r}")
            return (
                f"python mcp 2.3.0 OAuth: registered {storage.client_info.client_id if storage.client_info else '?'}, "
                f"signed in as alice via --auto-consent (iss {captured['iss']}), token expires in "
                f"{tokens.expires_in} s, models_list and call_perplexity_computer ok (thread {done['thread_id']})"
            )


def leaf_errors(err: BaseException) -> list[BaseException]:
    """The errors inside an exception group (the SDK's task groups wrap what the body raised)."""
    if isinstance(err, BaseExceptionGroup):
        return [leaf for inner in err.exceptions for leaf in leaf_errors(inner)]
    return [err]


def describe(err: BaseException) -> str:
    if isinstance(err, CheckFailed):
        return str(err)
    if isinstance(err, TimeoutError):
        return f"gave up after {OVERALL_TIMEOUT_S:.0f} s without finishing"
    return f"{type(err).__name__}: {err}"


async def main_async(url: str) -> int:
    try:
        with anyio.fail_after(OVERALL_TIMEOUT_S):
            summary = await run(url)
    except Exception as err:  # an SDK or transport error is a failure to report, not a crash
        leaves = leaf_errors(err)
        checks = [leaf for leaf in leaves if isinstance(leaf, CheckFailed)]
        for leaf in checks or leaves:
            print(f"FAIL python_sdk_oauth: {describe(leaf)}")
        return 1
    print(f"PASS {summary}")
    return 0


def main() -> int:
    if len(sys.argv) < 2:
        print("usage: python_sdk_oauth.py MCP_URL  (the mock runs with --auto-consent alice)", file=sys.stderr)
        return 2
    return anyio.run(main_async, sys.argv[-1])


if __name__ == "__main__":
    sys.exit(main())
