import { expect, it } from 'vitest';
import { op } from 'weft';
import { StatusCodeValue } from '../../src/otlp/index.js';
import { startHarness } from './harness.js';

// shutdown() ends the ops still running, as they stand, so that their spans are sent; a call that ends later
// changes nothing, and only the latest 1,024 unfinished calls are kept for it, so that an app that leaves calls
// unfinished for good does not hold them all.

it('shutdown() sends the latest 1,024 ops still running as unfinished, and their later end changes nothing', async () => {
  const harness = await startHarness({ batch: { maxQueueSize: 4096, maxExportBatchSize: 512 } });
  let release!: (value: string) => void;
  const pending = new Promise<string>((resolve) => {
    release = resolve;
  });
  const wait = op(async function wait(index: number) {
    return `${index}: ${await pending}`;
  });
  const done = op(function done() {
    return 'done';
  });

  done();
  const running = Array.from({ length: 1030 }, (_, index) => wait(index));
  await harness.close();
  release('released');
  expect(await Promise.all(running)).toHaveLength(1030);

  const spans = harness.receiver.spans();
  expect(spans.filter((s) => s.name === 'done').map((s) => s.status.code)).toEqual([StatusCodeValue.UNSET]);
  const unfinished = spans.filter((s) => s.name === 'wait');
  expect(unfinished).toHaveLength(1024);
  // The oldest six made room: the latest are the ones sent.
  expect(unfinished.map((s) => JSON.parse(String(s.attributes.inputs)).index).sort((a, b) => a - b)[0]).toBe(6);
  for (const span of unfinished) {
    expect(span.status).toEqual({ code: StatusCodeValue.ERROR, message: 'CallUnfinished: weft was shut down before this call ended; recorded as it stood' });
    expect(span.events.map((e) => e.attributes['exception.type'])).toEqual(['CallUnfinished']);
    expect(span.attributes).not.toHaveProperty('output');
  }
});
