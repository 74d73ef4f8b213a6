import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { op, withSpan } from 'weft';
import { collectGarbage } from '../helpers/gc.js';
import { HELLO, type OpenAIServer, startOpenAIServer } from '../helpers/openai-server.js';
import { named, outputOf, startHarness, type TracingHarness } from './harness.js';

// An op that returns the openai package's APIPromise itself: weft follows it without making it parse the body.

let harness: TracingHarness;
let server: OpenAIServer;
let client: OpenAI;
beforeAll(async () => {
  harness = await startHarness();
  server = await startOpenAIServer();
  client = new OpenAI({ baseURL: server.baseURL, apiKey: 'sk-test', maxRetries: 0 });
});
afterAll(async () => {
  await harness.close();
  await server.close();
});

const ask = op(function ask() {
  return client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
});

it('leaves the raw response body unread for an app that takes it with asResponse()', async () => {
  let body = '';
  const spans = await harness.capture(async () => {
    const response = await ask().asResponse();
    body = await response.text();
  });
  expect(JSON.parse(body).choices[0].message.content).toBe('Hello there!');
  expect(named(spans, 'ask').status.code).not.toBe(2);
});

it('records the parsed completion as the output when the app awaits the APIPromise', async () => {
  let content: string | null | undefined;
  const spans = await harness.capture(async () => {
    content = (await ask()).choices[0]?.message.content;
  });
  expect(content).toBe('Hello there!');
  expect(outputOf(named(spans, 'ask'))).toMatchObject({ choices: [{ message: { content: 'Hello there!' } }] });
});

it('records the error of a failed request and hands the app the same error', async () => {
  server.reply({ status: 400, error: { message: 'no such model', type: 'invalid_request_error' } });
  let caught: unknown;
  const spans = await harness.capture(async () => {
    await ask().catch((error: unknown) => {
      caught = error;
    });
  });
  server.reply(HELLO);
  expect(caught).toBeInstanceOf(OpenAI.APIError);
  expect(named(spans, 'ask').status.code).toBe(2);
});

/** Resolves once the loopback server has answered and the answer has had time to reach the client. */
async function answered(): Promise<void> {
  const before = server.requests.length;
  while (server.requests.length === before) await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setTimeout(resolve, 100));
}

it('records the completion when the app awaits the APIPromise only after its response arrived', async () => {
  let content: string | null | undefined;
  const spans = await harness.capture(async () => {
    const pending = ask();
    await answered();
    content = (await pending).choices[0]?.message.content;
  });
  expect(content).toBe('Hello there!');
  expect(outputOf(named(spans, 'ask'))).toMatchObject({ choices: [{ message: { content: 'Hello there!' } }] });
});

it('records the completion through withSpan() and withResponse() taken late', async () => {
  let status: number | undefined;
  const spans = await harness.capture(async () => {
    const pending = withSpan('block', () => ask());
    await answered();
    status = (await pending.withResponse()).response.status;
  });
  expect(status).toBe(200);
  for (const name of ['block', 'ask']) {
    expect(outputOf(named(spans, name))).toMatchObject({ choices: [{ message: { content: 'Hello there!' } }] });
  }
});

it('ends the span without output once the response arrived, when the app takes the raw response late', async () => {
  let body = '';
  const spans = await harness.capture(async () => {
    const pending = ask();
    await answered();
    body = await (await pending.asResponse()).text();
  });
  expect(JSON.parse(body).choices[0].message.content).toBe('Hello there!');
  expect(named(spans, 'ask').status.code).not.toBe(2);
  expect(named(spans, 'ask').attributes).not.toHaveProperty('output');
});

it('ends the span once an APIPromise nobody ever took is garbage-collected', async () => {
  const spans = await harness.capture(async () => {
    const exported = harness.receiver.spans().length;
    ask();
    await answered();
    // Collected once the answer has reached the client and nothing holds the promise: then the span ends.
    for (let round = 0; round < 50 && harness.receiver.spans().length === exported; round++) {
      await collectGarbage();
      await harness.handle.forceFlush();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });
  expect(named(spans, 'ask').status.code).not.toBe(2);
});
