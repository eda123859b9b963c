// The official TypeScript SDK (@perplexity-ai/perplexity_ai 0.38.5) against the mock's Sonar
// routes, unchanged apart from PERPLEXITY_BASE_URL and PERPLEXITY_API_KEY.
//
// Usage: PERPLEXITY_BASE_URL=http://127.0.0.1:PORT PERPLEXITY_API_KEY=alice-dev-token \
//        node sonar_ts_sdk.mjs [NODE_MODULES_DIR]
//   The SDK is ESM-only and is loaded from NODE_MODULES_DIR (default: the repository's
//   .ci/node_modules). Run the mock with a fast clock (e.g. --time-scale 1000).
//
// What it checks (the TS SDK does not validate, so the checks read the parsed objects):
//   1. `chat.completions.create`: content citing [1], citations = search_results' URLs, usage
//      with a cost; a JSON-schema `response_format` answered with JSON that fits it;
//   2. `chat.completions.create({stream: true})`: chunks, the first delta's role `assistant`,
//      the deltas add up to the last chunk's message, one `finish_reason`;
//   3. `search.create`: the requested number of results, inside the domain filter;
//   4. `embeddings.create` / `contextualizedEmbeddings.create`: base64 int8 vectors of 1024
//      bytes, the same text the same vector; one list of chunk vectors per document;
//   5. `async.chat.completions.create / get / list`: CREATED at once, COMPLETED with a
//      completion once the job ran, listed; the idempotency key gives the same job back;
//   6. a 400 is a `BadRequestError` whose body is the error envelope.
// Prints one summary line and exits 0, or prints what went wrong and exits 1.

import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const modules = resolve(process.argv[2] ?? join(here, '..', '..', '..', '.ci', 'node_modules'));
const sdk = await import(pathToFileURL(join(modules, '@perplexity-ai', 'perplexity_ai', 'dist', 'index.js')).href);
const Perplexity = sdk.default;

const QUESTION = [{ role: 'user', content: 'What is new in solar power?' }];
const POLL_DEADLINE_MS = 60_000;

function expect(condition, what) {
  if (!condition) throw new Error(what);
}

async function main() {
  const client = new Perplexity({ maxRetries: 2 });
  let checks = 0;

  // 1. a whole completion
  const answer = await client.chat.completions.create({ model: 'sonar', messages: QUESTION });
  const content = answer.choices[0].message.content;
  expect(typeof content === 'string' && content.includes('[1]'), `content ${JSON.stringify(content)}`);
  expect(answer.citations?.length > 0 && answer.citations.length === answer.search_results?.length,
    `citations ${JSON.stringify(answer.citations)}`);
  expect(answer.citations[0] === answer.search_results[0].url, 'citations follow search_results');
  expect(answer.usage.cost.total_cost > 0, `cost ${JSON.stringify(answer.usage.cost)}`);
  const schema = { type: 'object', properties: { answer: { type: 'string' }, year: { type: 'integer' } },
    required: ['answer', 'year'] };
  const structured = await client.chat.completions.create({
    model: 'sonar-pro', messages: QUESTION,
    response_format: { type: 'json_schema', json_schema: { name: 'reply', schema } },
  });
  const parsed = JSON.parse(structured.choices[0].message.content);
  expect(typeof parsed.answer === 'string' && Number.isInteger(parsed.year), `structured ${JSON.stringify(parsed)}`);
  checks += 1;

  // 2. a stream
  const chunks = [];
  for await (const chunk of await client.chat.completions.create({ model: 'sonar', messages: QUESTION, stream: true })) {
    chunks.push(chunk);
  }
  expect(chunks.length > 1 && chunks[0].choices[0].delta.role === 'assistant', `first of ${chunks.length} chunks`);
  const text = chunks.map((c) => c.choices[0].delta.content ?? '').join('');
  expect(text === chunks.at(-1).choices[0].message.content, 'deltas add up to the message');
  const finished = chunks.map((c) => c.choices[0].finish_reason).filter(Boolean);
  expect(JSON.stringify(finished) === '["stop"]', `finish reasons ${JSON.stringify(finished)}`);
  checks += 1;

  // 3. search
  const found = await client.search.create({ query: 'solar power', max_results: 4, search_domain_filter: ['nature.com'] });
  expect(found.results.length === 4 && found.results.every((r) => r.url.includes('nature.com') && r.title),
    `search ${JSON.stringify(found).slice(0, 300)}`);
  checks += 1;

  // 4. embeddings
  const texts = ['solar panels on a roof', 'solar panels on a roof', 'a recipe for bread'];
  const vectors = await client.embeddings.create({ model: 'pplx-embed-v1-0.6b', input: texts });
  const raw = vectors.data.map((d) => Buffer.from(d.embedding, 'base64'));
  expect(raw.every((r) => r.length === 1024), `dimensions ${raw.map((r) => r.length)}`);
  expect(raw[0].equals(raw[1]) && !raw[0].equals(raw[2]), 'deterministic per text');
  const documents = await client.contextualizedEmbeddings.create({
    model: 'pplx-embed-context-v1-0.6b', input: [['chunk one', 'chunk two'], ['other']],
  });
  expect(JSON.stringify(documents.data.map((d) => d.data.length)) === '[2,1]', 'one list per document');
  checks += 1;

  // 5. async
  const request = { model: 'sonar-deep-research', messages: QUESTION };
  let job = await client.async.chat.completions.create({ request, idempotency_key: 'ts-sdk-check-1' });
  expect(job.status === 'CREATED' || job.status === 'IN_PROGRESS', `submitted ${job.status}`);
  const again = await client.async.chat.completions.create({ request, idempotency_key: 'ts-sdk-check-1' });
  expect(again.id === job.id, 'the idempotency key gives the same job');
  const deadline = Date.now() + POLL_DEADLINE_MS;
  while (!['COMPLETED', 'FAILED'].includes(job.status) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    job = await client.async.chat.completions.get(job.id);
  }
  expect(job.status === 'COMPLETED' && job.response?.choices?.[0]?.message?.content, `job ${job.status}`);
  const listed = await client.async.chat.completions.list();
  expect(listed.requests.some((r) => r.id === job.id), 'the job is listed');
  checks += 1;

  // 6. an error
  try {
    await client.chat.completions.create({ model: 'gpt-nothing', messages: QUESTION });
    throw new Error('an unknown model was accepted');
  } catch (e) {
    expect(e instanceof sdk.BadRequestError && e.error?.error?.type === 'invalid_model',
      `400: ${e?.constructor?.name} ${JSON.stringify(e?.error)}`);
  }
  checks += 1;

  console.log(`sonar ts sdk: ${checks} checks passed (${chunks.length} stream chunks)`);
}

main().catch((e) => {
  console.error(`FAILED: ${e?.stack ?? e}`);
  process.exit(1);
});
