"""Conformance adapter for the official Python MCP SDK (`mcp` 2.3.0), handshake era.

Usage (the runner appends the MCP URL):  conformance --target "python python_sdk.py [--naive]"
The SDK speaks MCP; this file is the host: it asks the user channel (CONFORMANCE_USER_URL) what
the person says and follows the Computer follow-up rules. `--naive` takes `event: complete` as
"finished" (the mistake the document warns about), to show the suite catches it.
"""
import json, os, sys
import anyio, httpx2
from mcp import Client, Implementation
from mcp.client.streamable_http import streamable_http_client

URL, NAIVE = sys.argv[-1], "--naive" in sys.argv
USER = os.environ["CONFORMANCE_USER_URL"]
TOKEN = os.environ.get("CONFORMANCE_BEARER_TOKEN", "alice-dev-token")
TERMINAL = {"completed", "failed", "cancelled"}

async def main():
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60) as http, \
               httpx2.AsyncClient(timeout=60) as plain:  # presigned uploads and downloads carry no token
        user = lambda path, body=None: http.post(f"{USER}/{path}", json=body or {}) if body is not None else http.get(f"{USER}/{path}")
        async def ask(**body): return (await user("ask", body)).json()
        async with Client(streamable_http_client(URL, http_client=http), mode="legacy",
                          client_info=Implementation(name="python-sdk-adapter", version="1")) as mcp:
            async def call(tool, **args):
                result = await mcp.call_tool(tool, args, progress_callback=lambda *_: anyio.lowlevel.checkpoint())
                return json.loads(result.content[0].text)
            async def poll(thread):
                while True:
                    r = await call("read_thread", thread_id=thread)
                    ws = r.get("web_state") or {}
                    if ws.get("task_status") != "working":
                        auths = (ws.get("entries") or [{}])[-1].get("auth_requests") or []
                        return {**r, "event": "auth_required" if auths else "complete",
                                "task_status": ws.get("task_status"), "interactive": auths[0] if auths else None}
                    await anyio.sleep(0.01)
            async def pages(tool, key, **args):  # keep paging while next_cursor is not null, even past empty pages
                items, cursor = [], None
                while True:
                    page = await call(tool, **args, **({"cursor": cursor} if cursor else {}))
                    items += page[key]
                    if not (cursor := page["next_cursor"]):
                        return items
            thread, done_uuids, links = None, set(), {}
            while (m := await user("next-message")).status_code == 200:
                turn = m.json()
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
                args |= turn.get("settings") or {}  # the person's pick: a mode, or a model with an effort
                for f in turn.get("attachments") or []:  # envelope, every upload_fields key then the file, attachment_url
                    data = f["content"].encode()
                    env = await call("create_attachment_upload", filename=f["filename"], mime_type=f["mime_type"], size_bytes=len(data))
                    await plain.post(env["upload_url"], data=env["upload_fields"], files={"file": (f["filename"], data, f["mime_type"])})
                    args.setdefault("attachment_urls", []).append(env["attachment_url"])
                r = await call("call_perplexity_computer", message=message, **args)
                while True:
                    links |= {f["filename"]: f["url"] for f in r.get("files") or []}
                    thread, ev, st, it = r.get("thread_id") or thread, r.get("event"), r.get("task_status"), r.get("interactive") or {}
                    if ev == "insufficient_credits":
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
                    elif ev == "auth_required":
                        await ask(kind="url", url=it["auth_url"], message=f"Sign in to {it['display_name']}")
                        r = await call("notify_connected", thread_id=thread, message="Connected", connector=it["connector"])
                    elif ev == "waiting" or st in TERMINAL or (NAIVE and ev == "complete"):
                        await user("show", {"kind": "final", "text": r.get("text")})
                        break
                    else:  # working (sleep, a sign-in sent, ...) or waiting on input read_thread will show
                        r = await poll(thread)

anyio.run(main)
