import { op, withThread } from 'weft';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputsOf, startHarness, type TracingHarness } from './harness.js';

let h: TracingHarness;
beforeAll(async () => {
  // Room for every span of the 1,000-call test, so none is dropped while the exporter catches up.
  h = await startHarness({ batch: { maxQueueSize: 8192 } });
});
afterAll(() => h.close());

const tick = () => new Promise((r) => setTimeout(r, Math.floor(Math.random() * 3)));

const leaf = op(async function leaf(branch: number) {
  await tick();
  return branch;
});
const branch = op(async function branch(id: number) {
  await tick();
  const a = await leaf(id);
  await tick();
  const b = await leaf(id);
  return a + b;
});

describe('concurrency', () => {
  it('keeps each parallel Promise.all branch as the parent of its own calls', async () => {
    const root = op(async function root() {
      return Promise.all([branch(1), branch(2), branch(3)]);
    });
    const spans = await h.capture(() => root());
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const rootSpan = spans.find((s) => s.name === 'root')!;
    const branches = spans.filter((s) => s.name === 'branch');
    expect(branches).toHaveLength(3);
    expect(branches.every((s) => s.parentSpanId === rootSpan.spanId)).toBe(true);
    for (const l of spans.filter((s) => s.name === 'leaf')) {
      const parent = byId.get(l.parentSpanId!)!;
      expect(parent.name).toBe('branch');
      expect(inputsOf(l)).toEqual({ branch: (inputsOf(parent) as { id: number }).id });
    }
  });

  it('keeps parents and threads straight across 1,000 parallel calls', async () => {
    const spans = await h.capture(() =>
      Promise.all(Array.from({ length: 1000 }, (_, i) => withThread(`thread-${i}`, () => branch(i)))),
    );
    expect(spans).toHaveLength(3000);
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const roots = spans.filter((s) => s.name === 'branch');
    expect(roots).toHaveLength(1000);
    for (const r of roots) {
      expect(r.parentSpanId).toBeUndefined();
      expect(r.attributes['wandb.thread_id']).toBe(`thread-${(inputsOf(r) as { id: number }).id}`);
      expect(r.attributes['wandb.is_turn']).toBe(true);
    }
    for (const l of spans.filter((s) => s.name === 'leaf')) {
      const parent = byId.get(l.parentSpanId!)!;
      const id = (inputsOf(parent) as { id: number }).id;
      expect(inputsOf(l)).toEqual({ branch: id });
      expect(l.traceId).toBe(parent.traceId);
      expect(l.attributes['wandb.thread_id']).toBe(`thread-${id}`);
      expect(l.attributes).not.toHaveProperty('wandb.is_turn');
    }
  });
});
