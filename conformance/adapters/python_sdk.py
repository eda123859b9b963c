"""Conformance adapter for the official Python MCP SDK (`mcp` 2.3.0), both protocol eras.

Usage (the runner appends the MCP URL):  conformance --target "python python_sdk.py [--naive] [--legacy]"
The SDK speaks MCP; this file is the host: it asks the user channel (CONFORMANCE_USER_URL) what
the person says and follows the Computer follow-up rules. The SDK negotiates the era with its
default `mode="auto"` (the runner's mock answers as a server of the scenario's era would);
`--legacy` forces the handshake. In 2026-07-28 (MCP_CONFORMANCE_PROTOCOL_VERSION) the SDK answers
in-call questions through `elicitation_callback` (MRTR), and
with MCP_CONFORMANCE_CONTEXT's `flow: tasks` the `Tasks` extension below follows the task.
`--naive` takes `event: complete` as "finished" (the mistake the document warns about), to show
the suite catches it.
In the sign-in scenarios (MCP_CONFORMANCE_CONTEXT's `sign_in: oauth`) the runner hands out no
token: the SDK's `OAuthClientProvider` signs in, "opening the browser" by asking the person on the
user channel (`ask kind: url`), whose answer says where the consent page redirected. The SDK
judges expiry by the wall clock while the mock's clock is virtual, so when the person was away
(`after_seconds`) the adapter moves the SDK's expiry back as far: the SDK then refreshes.
The SDK resumes a dropped call stream itself (GET with Last-Event-ID); when the server has
forgotten the session it raises `session not found` (-32001), so the adapter, as a host would,
opens a new session (the SDK initializes it) and sends the call again there.
"""
import json, os, sys
from contextlib import AsyncExitStack
from typing import Any, Literal
import anyio, httpx2
from pydantic import TypeAdapter
from urllib.parse import parse_qs, urlparse
from mcp import Client, Implementation
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider, TokenStorage
from mcp.shared.auth import OAuthClientMetadata
from mcp.client.extension import ClientExtension, ResultClaim
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, ElicitResult, Request, Result

URL, NAIVE, LEGACY = sys.argv[-1], "--naive" in sys.argv, "--legacy" in sys.argv
USER = os.environ["CONFORMANCE_USER_URL"]
TOKEN = os.environ.get("CONFORMANCE_BEARER_TOKEN", "alice-dev-token")
MODERN = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION") == "2026-07-28"
CONTEXT = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
TASKS, OAUTH = CONTEXT.get("flow") == "tasks", CONTEXT.get("sign_in") == "oauth"
TERMINAL = {"completed", "failed", "cancelled"}
SESSION_NOT_FOUND = -32001  # the JSON-RPC code of a 404 for a forgotten Mcp-Session-Id

class TaskRequest(Request[dict[str, Any], str]):  # tasks/get, tasks/update, tasks/cancel
    name_param = "taskId"  # the SDK mirrors it into the Mcp-Name header

class Task(Result):  # the CreateTaskResult a tools/call answers when the extension is declared
    result_type: Literal["task"]
    task_id: str
    poll_interval_ms: int = 5000

class Tasks(ClientExtension):  # io.modelcontextprotocol/tasks: poll, answer input, stop on request
    identifier = "io.modelcontextprotocol/tasks"
    def __init__(self, answer, user, call):
        self.answer, self.user, self.call = answer, user, call
    def claims(self):
        return [ResultClaim(result_type="task", model=Task, resolve=self.follow)]
    async def follow(self, task, ctx):
        send = lambda method, **p: ctx.session.send_request(TaskRequest(method=method, params={"taskId": task.task_id, **p}), TypeAdapter(dict))
        thread, state, answered = task.meta["ai.perplexity/threadId"], {}, set()
        while state.get("status") not in TERMINAL:
            POLL["ms"] = state.get("pollIntervalMs", task.poll_interval_ms)
            await anyio.sleep(POLL["ms"] / 1000)
            state = await send("tasks/get")
            todo = {k: r for k, r in (state.get("inputRequests") or {}).items() if k not in answered}
            if todo:
                answered |= todo.keys()
                await send("tasks/update", inputResponses={k: await self.answer(r["params"]) for k, r in todo.items()})
            elif state["status"] == "working" and (await self.user("interrupt")).status_code == 200:
                await send("tasks/cancel")
                await self.call("cancel_task", thread_id=thread)
        return CallToolResult.model_validate(state.get("result") or {"content": [{"type": "text", "text": json.dumps(
            {"thread_id": thread, "event": state["status"], "task_status": state["status"]})}]})  # cancelled, or failed

POLL = {"ms": 5000}  # the pollIntervalMs last announced

class Reconnect(httpx2.AsyncBaseTransport):  # a dropped tasks/get: wait the interval, send it again on a new connection
    def __init__(self):
        self.inner = httpx2.AsyncHTTPTransport()
    async def handle_async_request(self, request):
        try:
            return await self.inner.handle_async_request(request)
        except httpx2.RemoteProtocolError:  # Computer goes on: poll the same task id again (the token goes with it)
            if b'"tasks/get"' not in request.content:
                raise
            await anyio.sleep(POLL["ms"] / 1000)
            return await self.inner.handle_async_request(request)
    async def aclose(self):
        await self.inner.aclose()

class Memory(TokenStorage):  # the host's keychain, for the life of the run
    tokens = client_info = None
    async def get_tokens(self): return self.tokens
    async def set_tokens(self, tokens): self.tokens = tokens
    async def get_client_info(self): return self.client_info
    async def set_client_info(self, info): self.client_info = info

def sign_in(plain):  # the SDK's OAuth, with the person on the consent page
    redirect = {}
    async def open_browser(url):
        answer = (await plain.post(f"{USER}/ask", json={"kind": "url", "url": url, "message": "Sign in to Perplexity Computer"})).json()
        redirect.update({k: v[0] for k, v in parse_qs(urlparse(answer.get("redirect", "")).query).items()})
    async def callback():
        return AuthorizationCodeResult(code=redirect.pop("code", ""), state=redirect.pop("state", None), iss=redirect.pop("iss", None))
    return OAuthClientProvider(URL, OAuthClientMetadata(client_name="python-sdk-adapter", redirect_uris=["http://127.0.0.1:9/callback"],
        grant_types=["authorization_code", "refresh_token"], response_types=["code"], token_endpoint_auth_method="none"),
        Memory(), open_browser, callback)

async def main():
    async with httpx2.AsyncClient(timeout=60) as plain:  # the user channel, presigned uploads and downloads: no token
        auth = sign_in(plain) if OAUTH else None
        async with httpx2.AsyncClient(auth=auth, timeout=60) if OAUTH else \
                   httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60, transport=Reconnect()) as http:
            await host(http, plain, auth)

async def host(http, plain, auth):  # the person's turns and the Computer follow-up rules
    user = lambda path, body=None: plain.post(f"{USER}/{path}", json=body or {}) if body is not None else plain.get(f"{USER}/{path}")
    async def ask(**body): return (await user("ask", body)).json()
    async def answer(p):  # an elicitation/create's params -> an ElicitResult, from the user
        if p.get("mode") == "url":
            return {"action": (await ask(kind="url", url=p["url"], message=p["message"]))["action"]}
        if not p["requestedSchema"].get("properties"):  # an approval: a form without fields
            yes = (await ask(kind="confirm", message=p["message"]))["action"] == "accept"
            return {"action": "accept", "content": {}} if yes else {"action": "decline"}
        said = await ask(kind="question", message=p["message"])
        # A declined form goes back declined: the call then returns the event, answered with answer_question.
        return {"action": "accept", "content": said["content"]} if said["action"] == "accept" else {"action": said["action"]}
    async def on_elicit(_ctx, params):
        return ElicitResult(**await answer(params.model_dump(by_alias=True, exclude_none=True)))
    # The person's first message comes before the host connects, so the user channel's log and
    # the MCP traffic interleave the same way on every run (snapshots compare them).
    first = await user("next-message")
    async def turns():
        m = first
        while m.status_code == 200:
            yield m.json()
            m = await user("next-message")
    connect = lambda: Client(streamable_http_client(URL, http_client=http), mode="legacy" if LEGACY else "auto",
                             elicitation_callback=on_elicit if MODERN else None,
                             extensions=[Tasks(answer, user, lambda tool, **a: call(tool, **a))] if TASKS else None,
                             client_info=Implementation(name="python-sdk-adapter", version="1"))
    async with AsyncExitStack() as connections:
        mcp = await connections.enter_async_context(connect())
        async def call(tool, **args):
            nonlocal mcp
            statuses = []
            async def progress(_progress, _total=None, message=None):
                if message:
                    statuses.append(message)
            try:
                result = await mcp.call_tool(tool, args, progress_callback=progress)
            except MCPError as error:
                # The server forgot the session (404, -32001). The SDK raises rather than start a
                # new one, so the host does, as the transport requires, and sends the call again
                # there: it never ran.
                if error.code != SESSION_NOT_FOUND:
                    raise
                mcp = await connections.enter_async_context(connect())
                result = await mcp.call_tool(tool, args, progress_callback=progress)
            # Each status is shown, in order, once the call returns: a live display would show
            # them as they arrive, but the SDK runs callbacks concurrently with the call, so the
            # snapshots of this adapter's traffic would then differ from run to run.
            for message in statuses:
                await user("show", {"kind": "status", "text": message})
            return json.loads(result.content[0].text)
        async def poll(thread):
            while True:
                r = await call("read_thread", thread_id=thread)
                ws = r.get("web_state") or {}
                if r.get("web_state_error") is None and ws.get("task_status") != "working":
                    last = (ws.get("entries") or [{}])[-1]
                    auths = last.get("auth_requests") or []
                    forms = [i for i in last.get("interactions") or [] if i.get("status") == "WAITING_FOR_USER"]
                    if forms:  # a question only read_thread shows: answered with its answer_submission_uuid
                        f = forms[0]
                        return {**r, "event": f["type"], "task_status": ws.get("task_status"),
                                "text": "\n".join(q["question"] for q in f["request"].get("questions") or []) or f["request"].get("action"),
                                "interactive": {**f, "followup_uuid": f["request"]["answer_submission_uuid"]}}
                    return {**r, "event": "auth_required" if auths else "complete",
                            "task_status": ws.get("task_status"), "interactive": auths[0] if auths else None}
                await anyio.sleep(0.01)  # still working, or the state could not be loaded: read again
        async def pages(tool, key, **args):  # keep paging while next_cursor is not null, even past empty pages
            items, cursor = [], None
            while True:
                page = await call(tool, **args, **({"cursor": cursor} if cursor else {}))
                items += page[key]
                if not (cursor := page["next_cursor"]):
                    return items
        thread, done_uuids, links, listed = None, set(), {}, False
        async for turn in turns():
            if auth and auth.context.token_expiry_time and turn.get("after_seconds"):
                auth.context.token_expiry_time -= turn["after_seconds"]  # the person was away that long
            message, req = turn["message"], turn.get("request") or {}
            if req.get("kind") == "files":  # the person asks the host for the latest answer's files
                entry = (await call("read_thread", thread_id=thread))["web_state"]["entries"][-1]["entry_id"]
                await user("show", {"kind": "files", "files": await pages("list_thread_assets", "assets", thread_id=thread, entry_id=entry)})
                continue
            if req.get("kind") == "download":  # links last an hour: when one is refused, get a fresh one
                url = links.get(req["filename"])
                if not url or (await plain.get(url)).status_code != 200:
                    asset = next(a for a in await pages("list_thread_assets", "assets", thread_id=thread) if a["filename"] == req["filename"])
                    url = (await call("create_asset_download", thread_id=thread, asset_id=asset["asset_id"]))["url"]
                    await plain.get(url)
                await user("show", {"kind": "file", "files": [{"filename": req["filename"], "url": url}]})
                continue
            args = {"thread_id": thread} if thread else {}
            if project := turn.get("project"):  # only a new conversation starts in a Project
                found = next(p for p in await pages("projects_list", "projects") if p["name"] == project["name"])
                args |= {"project_uuid": found["project_uuid"], "project_visibility": project["visibility"]}
            if turn.get("settings") and not listed:  # the picks come from models_list
                await call("models_list")
                listed = True
            args |= turn.get("settings") or {}  # the person's pick: a mode, or a model with an effort
            refused = None
            for f in turn.get("attachments") or []:  # envelope, every upload_fields key then the file, attachment_url
                data = (f.get("content") or "").encode()
                env = await call("create_attachment_upload", filename=f["filename"], mime_type=f["mime_type"], size_bytes=f.get("size_bytes", len(data)))
                if "upload_url" not in env:  # refused (a plan's limit): the person is told, the message needs the file
                    refused = env
                    break
                await plain.post(env["upload_url"], data=env["upload_fields"], files={"file": (f["filename"], data, f["mime_type"])})
                args.setdefault("attachment_urls", []).append(env["attachment_url"])
            if refused:
                await user("show", {"kind": "error", "text": refused.get("text")})
                continue
            r = await call("call_perplexity_computer", message=message, **args)
            while True:
                links |= {f["filename"]: f["url"] for f in r.get("files") or []}
                thread, ev, st, it = r.get("thread_id") or thread, r.get("event"), r.get("task_status"), r.get("interactive") or {}
                if ev in ("error", "access_denied"):  # a failed run or a refusal: shown as such, not retried
                    await user("show", {"kind": "error", "text": r.get("text")})
                    break
                elif ev == "insufficient_credits":
                    await user("show", {"kind": "error", "text": r.get("text")})  # names quota_reset_date
                    if not it.get("billing_url"):  # topping up would not help
                        break
                    await ask(kind="url", url=it["billing_url"], message="Add credits")
                    r = await call("call_perplexity_computer", message=message if "thread_id" not in r else "Please continue.", **({"thread_id": thread} if thread else {}))
                elif ev == "timeout":
                    if (await user("interrupt")).status_code == 200:
                        await call("cancel_task", thread_id=thread)
                        while (await call("read_thread", thread_id=thread))["web_state"]["task_status"] not in TERMINAL:
                            await call("cancel_task", thread_id=thread)
                        break
                    r = await poll(thread)
                elif ev in ("ask_user_question", "confirm_action"):
                    todo = [i for i in (r.get("pending_interactions") or [it]) if i.get("followup_uuid") not in done_uuids]
                    i = todo[0] if todo else it
                    done_uuids.add(i.get("followup_uuid"))
                    if i["type"] == "confirm_action":
                        yes = (await ask(kind="confirm", message=r.get("text")))["action"] == "accept"
                        r = await call("confirm_action_approve" if yes else "confirm_action_deny", thread_id=thread,
                                       result="Approved." if yes else "Denied.", followup_uuid=i["followup_uuid"])
                    else:
                        answers = (await ask(kind="question", message=r.get("text")))["content"]
                        r = await call("answer_question", thread_id=thread, answers=answers, followup_uuid=i["followup_uuid"])
                elif ev == "interaction_required":  # a form only Perplexity shows: open it, then go on
                    await ask(kind="url", url=it["url"], message=r.get("text"))
                    r = await call("call_perplexity_computer", message="Done in Perplexity; please continue.", thread_id=thread)
                elif ev == "two_factor_required":  # the instructions; the person's reply continues the thread
                    await user("show", {"kind": "status", "text": r.get("text")})
                    break
                elif ev == "auth_required":
                    await ask(kind="url", url=it["auth_url"], message=f"Sign in to {it['display_name']}")
                    r = await call("notify_connected", thread_id=thread, message="Connected", connector=it["connector"])
                elif ev == "waiting" or st in TERMINAL or (NAIVE and ev == "complete"):
                    await user("show", {"kind": "final", "text": r.get("text")})
                    break
                else:  # working (sleep, a sign-in sent, ...) or waiting on input read_thread will show
                    r = await poll(thread)

anyio.run(main)
