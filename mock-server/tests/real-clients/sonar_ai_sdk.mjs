// Vercel's AI SDK (`ai` 7.0.173 with `@ai-sdk/perplexity` 4.0.49) against the mock's chat
// completions and embeddings.
//
// Usage: node sonar_ai_sdk.mjs BASE_URL [NODE_MODULES_DIR]   (e.g. http://127.0.0.1:8080)
//   The provider reads PERPLEXITY_API_KEY (alice-dev-token is used when it is unset) but has no
//   environment variable for its host: `createPerplexity({ baseURL })` is the only way to point
//   it elsewhere; it posts to `{baseURL}/chat/completions` and `{baseURL}/v1/embeddings`.
//   The packages are ESM-only and are loaded from NODE_MODULES_DIR (default: .ci/node_modules).
//
// What it checks:
//   1. `generateText`: the answer citing [1], a `source` per citation (the provider's parse of
//      `citations`), usage, Perplexity's `providerMetadata` (cost);
//   2. `streamText`: the text parts assembled equal the same request's whole answer, the sources
//      from the first chunk, a `stop` finish reason;
//   3. `embed` / `embedMany` with `perplexity.embedding('pplx-embed-v1-0.6b')`: 1024 numbers
//      decoded from base64 int8, the same text the same vector, `dimensions` honoured.
// Prints one summary line and exits 0, or prints what went wrong and exits 1.

import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const baseURL = process.argv[2];
const modules = resolve(process.argv[3] ?? join(here, '..', '..', '..', '.ci', 'node_modules'));
const load = (...path) => import(pathToFileURL(join(modules, ...path, 'dist', 'index.js')).href);
const { generateText, streamText, embed, embedMany } = await load('ai');
const { createPerplexity } = await load('@ai-sdk', 'perplexity');

const PROMPT = '#cited-answer What did Webb find?';

function expect(condition, what) {
  if (!condition) throw new Error(what);
}

async function main() {
  expect(baseURL, 'usage: node sonar_ai_sdk.mjs BASE_URL [NODE_MODULES_DIR]');
  const perplexity = createPerplexity({ baseURL, apiKey: process.env.PERPLEXITY_API_KEY ?? 'alice-dev-token' });

  const whole = await generateText({ model: perplexity('sonar'), prompt: PROMPT, maxRetries: 0 });
  expect(whole.text.includes('[1]'), `text ${JSON.stringify(whole.text)}`);
  expect(whole.sources.length === 3 && whole.sources.every((s) => s.url.startsWith('https://')),
    `sources ${JSON.stringify(whole.sources)}`);
  expect(whole.finishReason === 'stop' && whole.usage.totalTokens > 0, `finish ${whole.finishReason}, usage ${JSON.stringify(whole.usage)}`);
  expect(whole.providerMetadata?.perplexity?.cost?.totalCost > 0, `providerMetadata ${JSON.stringify(whole.providerMetadata)}`);

  const streamed = streamText({ model: perplexity('sonar'), prompt: PROMPT, maxRetries: 0,
    onError: ({ error }) => { throw error; } });
  const parts = [];
  for await (const part of streamed.textStream) parts.push(part);
  expect(parts.length > 1 && parts.join('') === whole.text, `${parts.length} parts: ${JSON.stringify(parts.join(''))}`);
  expect((await streamed.sources).length === 3, 'the stream\'s sources');
  expect((await streamed.finishReason) === 'stop', `stream finish ${await streamed.finishReason}`);

  const model = perplexity.embedding('pplx-embed-v1-0.6b');
  const one = await embed({ model, value: 'solar panels on a roof', maxRetries: 0 });
  expect(one.embedding.length === 1024 && one.embedding.every((x) => Number.isInteger(x) && x >= -128 && x <= 127),
    `embedding of ${one.embedding.length}`);
  const many = await embedMany({ model, values: ['solar panels on a roof', 'a recipe for bread'], maxRetries: 0 });
  expect(JSON.stringify(many.embeddings[0]) === JSON.stringify(one.embedding), 'the same text the same vector');
  expect(JSON.stringify(many.embeddings[1]) !== JSON.stringify(one.embedding), 'another text another vector');
  const short = await embed({ model, value: 'solar', maxRetries: 0, providerOptions: { perplexity: { dimensions: 256 } } });
  expect(short.embedding.length === 256, `dimensions 256: got ${short.embedding.length}`);

  console.log(`sonar ai sdk: generateText, streamText (${parts.length} parts), embed, embedMany checked`);
}

main().catch((e) => {
  console.error(`FAILED: ${e?.stack ?? e}`);
  process.exit(1);
});
