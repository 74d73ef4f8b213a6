import { op, register, type WeftHandle, withContext, withSpan, withThread } from 'weft';
import { type DevService, startDevService } from 'weft/dev';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// What a user sees: weft's spans exported to `weft dev`, which turns spans into calls as the trace service does
// (reference trace-service.md §3.2), then read back through its calls query.
const PROJECT = 'test/call-view';

interface Call {
  op_name: string;
  id: string;
  parent_id?: string | null;
  display_name?: string | null;
  thread_id?: string | null;
  turn_id?: string | null;
  attributes: Record<string, unknown>;
  inputs: Record<string, unknown>;
  output?: unknown;
  exception?: string | null;
}

let dev: DevService;
let weft: WeftHandle;
beforeAll(async () => {
  dev = await startDevService({ port: 0, log: false });
  weft = register({ baseUrl: dev.url, project: PROJECT, instrumentations: [], flushOnExit: false });
});
afterAll(async () => {
  await weft.shutdown();
  await dev.close();
});

/** Runs `work`, exports its spans, and returns the calls named `opName` from the dev service. */
async function callsOf(opName: string, work: () => unknown): Promise<Call[]> {
  await work();
  await weft.forceFlush();
  const response = await fetch(`${dev.url}/calls/stream_query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: PROJECT }),
  });
  const lines = (await response.text()).split('\n').filter((l) => l.trim() !== '');
  // op_name comes back as a `weave:///…/op/<safe name>:<digest>` ref: the span name, lower-cased, `_` for spaces.
  const ref = `/op/${opName.toLowerCase().replaceAll(' ', '_')}:`;
  return lines.map((l) => JSON.parse(l) as Call).filter((c) => c.op_name.includes(ref));
}

describe('how the trace service shows op spans', () => {
  it('de-nests the named arguments into the call inputs and the return value into its output', async () => {
    const answer = op(async function answer(question: string, options: { k: number }) {
      return { text: `re: ${question}`, k: options.k };
    });
    const [call] = await callsOf('answer', () => answer('why?', { k: 2 }));
    expect(call?.inputs).toEqual({ question: 'why?', options: { k: 2 } });
    expect(call?.output).toEqual({ text: 're: why?', k: 2 });
  });

  it('shows a string output as the string itself', async () => {
    const shout = op((text: string) => text.toUpperCase(), { name: 'shout' });
    const [call] = await callsOf('shout', () => shout('hey'));
    expect(call?.output).toBe('HEY');
  });

  it('shows the falsy results false, 0 and the empty string, which the service would drop as values', async () => {
    const outputs: Record<string, unknown> = {};
    for (const [name, result] of [['isSame', false], ['score', 0], ['blank', '']] as const) {
      const [call] = await callsOf(name, () => op(() => result, { name })());
      outputs[name] = call?.output;
    }
    expect(outputs).toEqual({ isSame: 'false', score: '0', blank: '""' });
  });

  it('shows a Date result as its ISO text, without JSON quotes', async () => {
    const [call] = await callsOf('when', () => op(() => new Date(0), { name: 'when' })());
    expect(call?.output).toBe('1970-01-01T00:00:00.000Z');
  });

  it('shows display name, kind, custom attributes, thread and turn', async () => {
    const step = op(async (n: number) => n, {
      name: 'step',
      displayName: 'Step one',
      kind: 'tool',
      attributes: { version: 'v2' },
    });
    const [call] = await callsOf('step', () => withThread('thread-x', () => step(1)));
    expect(call?.display_name).toBe('Step one');
    expect(call?.attributes).toMatchObject({ kind: 'tool', version: 'v2' });
    expect(call?.thread_id).toBe('thread-x');
    expect(call?.turn_id).toBe(call?.id);
  });

  it('keeps a call whose custom attribute extends one from withContext() metadata, and its child under it', async () => {
    const lookup = op(() => 'ok', { name: 'lookup' });
    const ask = op(() => lookup(), { name: 'ask', attributes: { 'model.version': '2024-06' } });
    const [call] = await callsOf('ask', () => withContext({ metadata: { model: 'gpt-4o' } }, () => ask()));
    expect(call?.attributes).toMatchObject({ model: { _value: 'gpt-4o', version: '2024-06' } });
    const [child] = await callsOf('lookup', () => undefined);
    expect(child?.parent_id).toBe(call?.id);
  });

  it('shows a failed call with its exception', async () => {
    const [call] = await callsOf('fails', () => {
      expect(() =>
        withSpan('fails', () => {
          throw new Error('no answer');
        }),
      ).toThrow('no answer');
    });
    expect(call?.exception).toBe('Error: no answer');
  });

  it('shows a thrown plain object as its JSON, not [object Object]', async () => {
    const throwsObject = op(
      () => {
        throw { code: 'RATE_LIMIT', message: 'slow down' };
      },
      { name: 'throwsObject' },
    );
    const [call] = await callsOf('throwsObject', () => expect(() => throwsObject()).toThrow());
    expect(call?.exception).toBe('{"code":"RATE_LIMIT","message":"slow down"}');
  });
});
