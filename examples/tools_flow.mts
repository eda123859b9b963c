// A minimal Perplexity Computer client: the tools flow on the official MCP TypeScript SDK
// (@modelcontextprotocol/sdk 1.32.2, which speaks the 2025-11-25 handshake era).
//
// It sends one message and follows the result as the Computer document says: after `timeout`
// it polls read_thread (whose task status is web_state.task_status: there is no top-level
// task_status there) until the task ends; it answers ask_user_question with answer_question
// and the event's followup_uuid, and decides confirm_action, asking the person on stdin.
//
// Usage: node examples/tools_flow.mts [MESSAGE] [MCP_URL]   (Node 22.18+; the token: $COMPUTER_TOKEN)
import { createInterface } from 'node:readline/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

type Task = { thread_id: string; event?: string; task_status?: string; text?: string;
  interactive?: { followup_uuid?: string }; web_state?: { task_status: string } };
const message = process.argv[2] ?? '#timeout-then-complete Summarize the top 5 stories on Hacker News';
const url = new URL(process.argv[3] ?? 'http://127.0.0.1:8080/rest/computer/mcp');
const token = process.env.COMPUTER_TOKEN ?? 'alice-dev-token';
const person = createInterface({ input: process.stdin });
const lines = person[Symbol.asyncIterator](); // the person's answers, one per line
const ask = async (text: string): Promise<string> => { console.log(text); return (await lines.next()).value ?? ''; };

const client = new Client({ name: 'tools-flow-example', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
// A call may wait two minutes before it answers `timeout`: the SDK's 60 s default is too short.
// `onprogress` makes the SDK send a progress token, so each step Computer takes streams in.
const call = async (name: string, args: Record<string, unknown>): Promise<Task> => {
  const result = await client.callTool({ name, arguments: args }, undefined,
    { timeout: 180_000, onprogress: (p) => { if (p.message) console.log('  ...', p.message); } });
  return JSON.parse((result.content as { text: string }[])[0].text); // the same JSON as structuredContent
};

let r = await call('call_perplexity_computer', { message });
const thread = r.thread_id; // reuse it for follow-ups on this conversation
for (;;) {
  console.log(`${r.event}: task_status ${r.task_status}`);
  const followup_uuid = r.interactive?.followup_uuid;
  if (r.event === 'timeout') { // still working: read the thread; never send the message again to check
    let read = await call('read_thread', { thread_id: thread });
    while (read.web_state?.task_status === 'working') { // read_thread's status is here
      await new Promise((done) => setTimeout(done, 2000)); // a real task takes minutes
      read = await call('read_thread', { thread_id: thread });
    }
    console.log(`read_thread: web_state.task_status ${read.web_state?.task_status}`);
    console.log(['completed', 'failed', 'cancelled'].includes(read.web_state?.task_status ?? '') ? read.text : 'waiting for the person: see web_state.entries');
    break;
  } else if (r.event === 'ask_user_question') { // the question is the text's first line
    const question = (r.text ?? '').split('\n')[0];
    r = await call('answer_question', { thread_id: thread, answers: { [question]: (await ask(`${r.text}\n>`)).trim() }, followup_uuid });
  } else if (r.event === 'confirm_action') {
    const yes = (await ask(`${r.text} [y/n]`)).trim().toLowerCase().startsWith('y');
    r = await call(yes ? 'confirm_action_approve' : 'confirm_action_deny', { thread_id: thread, result: yes ? 'Approved.' : 'Denied.', followup_uuid });
  } else { // complete, or an event this minimal client does not follow (auth_required, sleep, ...)
    console.log(r.text);
    break;
  }
}
person.close();
await client.close();
