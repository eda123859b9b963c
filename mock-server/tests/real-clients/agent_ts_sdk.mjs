// The official Agent API TypeScript SDK (@perplexity-ai/perplexity_ai 0.38.5) against the mock.
//
// Usage: PERPLEXITY_BASE_URL=http://127.0.0.1:PORT PERPLEXITY_API_KEY=alice-dev-token \
//        node agent_ts_sdk.mjs [NODE_MODULES_DIR]
//   The SDK is ESM-only and is loaded from NODE_MODULES_DIR (default: the repository's
//   .ci/node_modules, where .ci/run installs it).
//
// What it checks (the TS SDK does not validate, so the checks read the parsed objects):
//   1. sync `responses.create`: completed, `output_text` added by the SDK, usage;
//   2. the Slack connector example: the item types the SDK's union names;
//   3. streaming: events in order with sequence numbers 0..n, one terminal `response.completed`,
//      deltas that add up to the answer;
//   4. a 400 is a `BadRequestError` whose `error` is the envelope.
// Prints one summary line and exits 0, or prints what went wrong and exits 1.

import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const modules = resolve(process.argv[2] ?? join(here, '..', '..', '..', '.ci', 'node_modules'));
const { default: Perplexity } = await import(
  pathToFileURL(join(modules, '@perplexity-ai', 'perplexity_ai', 'dist', 'index.js')).href
);

const MODEL = 'openai/gpt-5.6-terra';

function expect(condition, what) {
  if (!condition) throw new Error(what);
}

async function main() {
  const client = new Perplexity();
  let checks = 0;

  const r = await client.responses.create({ model: MODEL, input: 'hi', tools: [{ type: 'web_search' }] });
  expect(r.status === 'completed', `sync status ${r.status}`);
  expect(r.output_text.startsWith('Here is what I found about “hi”'), `output_text ${JSON.stringify(r.output_text)}`);
  expect(r.usage && r.usage.total_tokens === r.usage.input_tokens + r.usage.output_tokens, 'usage');
  checks += 1;

  const slack = await client.responses.create({
    model: MODEL,
    input: 'Find and summarize recent messages about AI in my Slack workspace.',
    max_steps: 6,
    tools: [{ type: 'connector', id: 'connector_slack', server_label: 'slack' }],
  });
  const kinds = slack.output.map((item) => item.type).join(',');
  expect(kinds === 'mcp_list_tools,tool_search_output,mcp_call,message', `slack items ${kinds}`);
  expect(slack.output[2].connector_id === 'connector_slack' && slack.output[2].error === null, 'mcp_call');
  checks += 1;

  const stream = await client.responses.create({ model: MODEL, input: 'hi', stream: true, tools: [{ type: 'web_search' }] });
  const events = [];
  for await (const event of stream) events.push(event);
  expect(events[0].type === 'response.created' && events[1].type === 'response.in_progress', 'stream start');
  expect(events.at(-1).type === 'response.completed', `stream end ${events.at(-1).type}`);
  expect(events.every((e, i) => e.sequence_number === i), 'sequence numbers');
  const text = events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join('');
  expect(text.startsWith('Here is what I found about “hi”'), `deltas ${JSON.stringify(text)}`);
  checks += 1;

  try {
    await client.responses.create({ model: MODEL, input: '' });
    throw new Error('empty input accepted');
  } catch (e) {
    expect(e instanceof Perplexity.BadRequestError, `400 class ${e && e.constructor && e.constructor.name}: ${e}`);
    expect(e.status === 400 && e.error.error.type === 'invalid_request', `400 body ${JSON.stringify(e.error)}`);
  }
  checks += 1;

  console.log(`agent ts sdk 0.38.5: ${checks} checks passed`);
}

main().catch((e) => {
  console.error(`FAILED: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
