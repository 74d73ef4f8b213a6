import { deflateSync, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { register } from 'weft';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { devService, type Json, opNameOf, streamQuery } from './support.js';

// Real export bodies: weft's exporter sends spans to a loopback receiver, which keeps the protobuf bytes;
// the tests then replay those bytes to the dev service and read its answer.
let conflicting: Buffer;
let clean: Buffer;
let unconvertible: Buffer;
let builtinNames: Buffer;

beforeAll(async () => {
  const receiver = await startOtlpReceiver();
  const weft = register({ baseUrl: receiver.url, project: 'team/wire', global: false, instrumentations: [], flushOnExit: false, logger: false });
  const tracer = weft.tracerProvider.getTracer('wire');
  tracer.startSpan('conflict', { attributes: { a: 'x', 'a.b': 'y' } }).end();
  tracer.startSpan('ok', { attributes: { inputs: '{"n":1}' } }).end();
  await weft.forceFlush();
  conflicting = receiver.requests[0]!.body;
  tracer.startSpan('alone', { attributes: { output: 'done' } }).end();
  await weft.forceFlush();
  clean = receiver.requests[1]!.body;
  // A display name that parses to an object whose toString is not a function: no rule rejects it, but turning
  // it into text throws. The span after it must still be stored.
  tracer.startSpan('odd', { attributes: { 'wandb.display_name': '{"toString":1}' } }).end();
  tracer.startSpan('after', { attributes: { output: 'kept' } }).end();
  await weft.forceFlush();
  unconvertible = receiver.requests[2]!.body;
  // Keys named like what every JS object inherits are data like any other.
  tracer.startSpan('builtins', { attributes: { 'wandb.attributes.constructor': 'c', 'wandb.attributes.toString.x': 't', output: 'ok' } }).end();
  await weft.forceFlush();
  builtinNames = receiver.requests[3]!.body;
  await weft.shutdown();
  await receiver.close();
});


async function exportTo(url: string, body: Buffer, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/otel/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-protobuf', ...headers },
    body,
  });
  return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Json };
}

describe('weft dev: POST /otel/v1/traces on the wire', () => {
  it('answers {"partial_success": null} when every span was accepted', async () => {
    const dev = await devService();
    expect(await exportTo(dev.url, clean)).toEqual({ status: 200, type: 'application/json', body: { partial_success: null } });
  });

  it('counts a rejected span in partial_success with the reason', async () => {
    const dev = await devService();
    const res = await exportTo(dev.url, conflicting);
    expect(res.status).toBe(200);
    expect(res.body.partial_success.rejected_spans).toBe(1);
    expect(res.body.partial_success.error_message).toMatch(/conflicting attribute paths.*"a\.b"/);
  });

  it('rejects only the span whose conversion fails unexpectedly and stores the others', async () => {
    const dev = await devService();
    const res = await exportTo(dev.url, unconvertible);
    expect(res.status).toBe(200);
    expect(res.body.partial_success.rejected_spans).toBe(1);
    expect(res.body.partial_success.error_message).toMatch(/^span [0-9a-f]{16} \("odd"\): could not be converted to a call: /);
    const calls = await streamQuery(dev.url, { project_id: 'team/wire' });
    expect(calls.map((c) => [opNameOf(c), c.output])).toEqual([['after', 'kept']]);
  });

  it('stores a span whose attribute keys are named like an object’s built-ins (constructor, toString)', async () => {
    const dev = await devService();
    expect(await exportTo(dev.url, builtinNames)).toMatchObject({ status: 200, body: { partial_success: null } });
    const calls = await streamQuery(dev.url, { project_id: 'team/wire' });
    expect(calls.map((c) => [opNameOf(c), c.output, c.attributes?.constructor, c.attributes?.toString])).toEqual([
      ['builtins', 'ok', 'c', { x: 't' }],
    ]);
  });

  it('routes spans to the project named by the resource', async () => {
    const dev = await devService();
    await exportTo(dev.url, clean);
    const calls = await streamQuery(dev.url, { project_id: 'team/wire' });
    expect(calls.map((c) => [opNameOf(c), c.output])).toEqual([['alone', 'done']]);
  });

  it('accepts a gzip-compressed export', async () => {
    const dev = await devService();
    const res = await exportTo(dev.url, gzipSync(clean), { 'content-encoding': 'gzip' });
    expect(res.body).toEqual({ partial_success: null });
    expect(await streamQuery(dev.url, { project_id: 'team/wire' })).toHaveLength(1);
  });

  it('answers 413 for a compressed body that decompresses past the body limit', async () => {
    const dev = await devService({ maxBodyBytes: 64 * 1024 });
    // Zeros compress about a thousandfold: each body is far under the limit on the wire.
    const inflated = Buffer.alloc(64 * 1024 + 1);
    for (const [encoding, body] of [['gzip', gzipSync(inflated)], ['deflate', deflateSync(inflated)]] as const) {
      expect(body.length).toBeLessThan(1024);
      const res = await exportTo(dev.url, body, { 'content-encoding': encoding });
      expect([encoding, res.status, res.body.reason]).toEqual([
        encoding,
        413,
        'Request body decompresses to more than the limit of 65536 bytes.',
      ]);
    }
  });

  it('accepts a compressed body that decompresses to exactly the body limit', async () => {
    const dev = await devService({ maxBodyBytes: clean.length });
    const res = await exportTo(dev.url, deflateSync(clean), { 'content-encoding': 'deflate' });
    expect(res).toMatchObject({ status: 200, body: { partial_success: null } });
  });

  it('answers 400 with a clear message for bytes that are not an OTLP export', async () => {
    const dev = await devService();
    const res = await exportTo(dev.url, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]));
    expect(res.status).toBe(400);
    expect(res.body.reason).toMatch(/^Could not decode the OTLP export/);
  });

  it('answers 400 for a field numbered 0, which protobuf does not allow, at the top or nested', async () => {
    const dev = await devService();
    const bodies = {
      zeros: Buffer.alloc(100),
      // resource_spans (field 1, length 2) holding a field 0.
      nested: Buffer.from([0x0a, 0x02, 0x00, 0x00]),
    };
    for (const [name, body] of Object.entries(bodies)) {
      const res = await exportTo(dev.url, body);
      expect([name, res.status, res.body.reason]).toEqual([name, 400, expect.stringMatching(/invalid field number 0/)]);
    }
  });

  it('refuses OTLP/JSON with a 415 that says to send protobuf', async () => {
    const dev = await devService();
    const res = await exportTo(dev.url, Buffer.from('{"resourceSpans":[]}'), { 'content-type': 'application/json' });
    expect(res.status).toBe(415);
    expect(res.body.reason).toMatch(/application\/x-protobuf/);
  });
});
