"""A minimal Perplexity Computer client: the tools flow on the official MCP Python SDK (mcp 2.3.0).

It sends one message and follows the result as the Computer document says: after `timeout` it
polls read_thread (whose task status is web_state.task_status: there is no top-level
task_status there) until the task ends; it answers ask_user_question with answer_question and
the event's followup_uuid, and decides confirm_action, asking the person on stdin.

Usage: python examples/tools_flow.py [MESSAGE] [MCP_URL]   (the token: $COMPUTER_TOKEN)
"""
import json, os, sys
import anyio, httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

MESSAGE = sys.argv[1] if len(sys.argv) > 1 else "#timeout-then-complete Summarize the top 5 stories on Hacker News"
URL = sys.argv[2] if len(sys.argv) > 2 else "http://127.0.0.1:8080/rest/computer/mcp"
TOKEN = os.environ.get("COMPUTER_TOKEN", "alice-dev-token")
FINAL = {"completed", "failed", "cancelled"}

async def main():
    # A call may wait two minutes before it answers `timeout`: the read timeout must outlast it.
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=httpx2.Timeout(30, read=180))
    async with http, Client(streamable_http_client(URL, http_client=http)) as client:
        async def call(tool, **args):
            async def progress(_done, _total=None, message=None):  # a progress token is sent: steps stream in
                if message:
                    print("  ...", message)
            result = await client.call_tool(tool, args, progress_callback=progress)
            return json.loads(result.content[0].text)  # the same JSON as structuredContent
        r = await call("call_perplexity_computer", message=MESSAGE)
        thread = r["thread_id"]  # reuse it for follow-ups on this conversation
        while True:
            event, it = r.get("event"), r.get("interactive") or {}
            print(f"{event}: task_status {r.get('task_status')}")
            if event == "timeout":  # still working: read the thread; never send the message again to check
                while (status := (read := await call("read_thread", thread_id=thread))["web_state"]["task_status"]) == "working":
                    await anyio.sleep(2)  # a real task takes minutes: no need to ask more often
                print(f"read_thread: web_state.task_status {status}")
                print(read["text"] if status in FINAL else "waiting for the person: see web_state.entries")
                return
            if event == "ask_user_question":  # the question is the text's first line
                question = r["text"].splitlines()[0]
                answer = input(f"{r['text']}\n> ").strip()
                r = await call("answer_question", thread_id=thread, answers={question: answer}, followup_uuid=it["followup_uuid"])
            elif event == "confirm_action":
                yes = input(f"{r['text']} [y/n] ").strip().lower().startswith("y")
                r = await call("confirm_action_approve" if yes else "confirm_action_deny", thread_id=thread,
                               result="Approved." if yes else "Denied.", followup_uuid=it["followup_uuid"])
            else:  # complete, or an event this minimal client does not follow (auth_required, sleep, ...)
                print(r.get("text"))
                return

anyio.run(main)
