import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client, op, register, type WeftHandle } from 'weft';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

const WEFT_KEY = 'wk-many-keys-own-4e81c07a';
const clientKey = (i: number) => `wk-many-keys-client-${String(i).padStart(3, '0')}-9f2b`;

let receiver: OtlpReceiver;
let weft: WeftHandle;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  weft = register({ baseUrl: receiver.url, project: 'test/keys', apiKey: WEFT_KEY, instrumentations: [], flushOnExit: false });
});
afterAll(async () => {
  await weft.shutdown();
  await receiver.close();
});

it('scrubs the key of the newest client and weft\'s own key when an app has made many clients', async () => {
  // An app with a client per tenant: far more keys than weft keeps.
  for (let i = 0; i < 50; i++) new Client({ apiKey: clientKey(i), baseUrl: 'http://127.0.0.1:9', project: 'test/keys' });
  const leak = op(function leak() {
    return `newest ${clientKey(49)} own ${WEFT_KEY}`;
  });
  leak();
  await weft.forceFlush();
  const output = receiver.spans().find((s) => s.name === 'leak')?.attributes.output;
  expect(output).toBe('newest [REDACTED] own [REDACTED]');
});
