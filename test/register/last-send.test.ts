import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { countersAtExit, runNode } from '../helpers/child.js';
import { type OtlpReceiver, type ReceiverReply, startOtlpReceiver } from '../helpers/otlp-receiver.js';

// What is left unsent when the app calls process.exit() is sent synchronously, by a child process weft waits for
// (the `exit` event cannot wait for I/O). These run the built package in child processes, as an app would.
const fixture = 'test/register/fixtures/exit-now.mjs';
const API_KEY = 'weft-test-key-3f9c1a7e5b';

let receiver: OtlpReceiver | undefined;
afterEach(() => receiver?.close());

async function run(reply: (index: number) => ReceiverReply, env: Record<string, string> = {}) {
  receiver = await startOtlpReceiver({ reply: (_, index) => reply(index) });
  // The child's own time limit bounds the test: a last send that did not respect the flush timeout fails it.
  return runNode([fixture], { WEFT_BASE_URL: receiver.url, WEFT_PROJECT: 'acme/exit-now', WEFT_API_KEY: API_KEY, ...env }, { timeoutMs: 15_000 });
}

describe('process.exit() called by the app', () => {
  it('sends the span that ended just before, with the exporter headers, and counts it as exported', async () => {
    const result = await run(() => ({ status: 200 }), { FIXTURE_EXIT_CODE: '6' });
    expect(result.code, result.stderr).toBe(6);
    expect(receiver!.spans().map((s) => s.name)).toEqual(['at-exit']);
    const [request] = receiver!.requests;
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request?.headers.project_id).toBe('acme/exit-now');
    expect(request?.headers['user-agent']).toMatch(/^weft\//);
    expect(countersAtExit(result.stdout)).toEqual({ spansEnded: 1, spansExported: 1, spansDropped: 0, droppedSpans: 0 });
  });

  it('sends in requests no larger than a batch', async () => {
    const result = await run(() => ({ status: 200 }), { FIXTURE_SPANS: '5', FIXTURE_MAX_BATCH: '2' });
    expect(result.code, result.stderr).toBe(0);
    expect(receiver!.requests.map((request) => request.spans.length)).toEqual([2, 2, 1]);
    expect(countersAtExit(result.stdout)).toEqual({ spansEnded: 5, spansExported: 5, spansDropped: 0, droppedSpans: 0 });
  });

  it('counts as dropped the spans of the requests that failed, once one went', async () => {
    const result = await run((index) => (index === 0 ? { status: 200 } : { status: 503 }), { FIXTURE_SPANS: '5', FIXTURE_MAX_BATCH: '2' });
    expect(result.code, result.stderr).toBe(0);
    expect(receiver!.requests).toHaveLength(2);
    expect(result.stderr).toContain('could not send 3 span(s)');
    expect(countersAtExit(result.stdout)).toEqual({ spansEnded: 5, spansExported: 2, spansDropped: 3, droppedSpans: 3 });
  });

  it('sends again the spans of an export still in flight, which would never be answered', async () => {
    // The batch is exported 50 ms after the span ends, to a service that holds the request; the app exits later.
    const result = await run((index) => (index === 0 ? 'hang' : { status: 200 }), { FIXTURE_BATCH_DELAY: '50', FIXTURE_EXIT_AFTER: '500' });
    expect(result.code, result.stderr).toBe(0);
    expect(receiver!.requests).toHaveLength(2);
    expect(receiver!.spans().map((s) => s.name)).toEqual(['at-exit']);
    expect(countersAtExit(result.stdout)).toEqual({ spansEnded: 1, spansExported: 1, spansDropped: 0, droppedSpans: 0 });
  });

  it('ends within its flush timeout when the service never answers, the span counted as dropped and said once', async () => {
    const result = await run(() => 'hang');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('could not send 1 span(s)');
    expect(result.stderr.match(/could not send/g)).toHaveLength(1);
    expect(countersAtExit(result.stdout)).toEqual({ spansEnded: 1, spansExported: 0, spansDropped: 1, droppedSpans: 1 });
    expect(result.stdout + result.stderr).not.toContain(API_KEY);
  });

  it('counts the span as dropped when the service refuses it, without the key in any output', async () => {
    const result = await run(() => ({ status: 401, body: `bad key ${API_KEY}` }));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('(HTTP 401)');
    expect(countersAtExit(result.stdout)).toMatchObject({ spansExported: 0, spansDropped: 1 });
    expect(result.stdout + result.stderr).not.toContain(API_KEY);
  });
});

describe('the process that makes the last send', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // A stand-in for the Node binary (the app sets process.execPath to it): it records its arguments and the names
  // of its environment variables, then runs the real Node with the same arguments.
  function standIn(): { path: string; argv: () => string; env: () => string[]; starts: () => number } {
    dir = mkdtempSync(join(tmpdir(), 'weft-last-send-'));
    const path = join(dir, 'node');
    writeFileSync(
      path,
      `#!/bin/sh\necho started >> '${dir}/starts'\nprintf '%s\\n' "$@" > '${dir}/argv'\nenv | cut -d= -f1 > '${dir}/env'\necho "NODE_OPTIONS=[$NODE_OPTIONS]" >> '${dir}/env'\nexec '${process.execPath}' "$@"\n`,
    );
    chmodSync(path, 0o755);
    return {
      path,
      argv: () => readFileSync(join(dir!, 'argv'), 'utf8'),
      env: () => readFileSync(join(dir!, 'env'), 'utf8').trim().split('\n'),
      starts: () => readFileSync(join(dir!, 'starts'), 'utf8').trim().split('\n').length,
    };
  }

  it.skipIf(process.platform === 'win32')('gets the key in its environment only, never in its arguments, nor anything else of the app', async () => {
    const node = standIn();
    const result = await run(() => ({ status: 200 }), { FIXTURE_EXEC_STAND_IN: node.path, APP_SECRET: 'not for the child' });
    expect(result.code, result.stderr).toBe(0);
    // The stand-in did make the send.
    expect(receiver!.spans().map((s) => s.name)).toEqual(['at-exit']);
    expect(node.argv()).toContain('-e');
    expect(node.argv()).not.toContain(API_KEY);
    expect(node.argv()).not.toContain('Bearer');
    const env = node.env();
    expect(env).toContain('WEFT_LAST_SEND');
    expect(env).toContain('NODE_OPTIONS=[]');
    expect(env).not.toContain('APP_SECRET');
    expect(env).not.toContain('WEFT_API_KEY');
  });

  it.skipIf(process.platform === 'win32')('makes all its requests from one child: starting Node costs tens of milliseconds', async () => {
    const node = standIn();
    const result = await run(() => ({ status: 200 }), { FIXTURE_EXEC_STAND_IN: node.path, FIXTURE_SPANS: '5', FIXTURE_MAX_BATCH: '2' });
    expect(result.code, result.stderr).toBe(0);
    expect(receiver!.requests.map((request) => request.spans.length)).toEqual([2, 2, 1]);
    expect(node.starts()).toBe(1);
  });
});

describe('process.exit() later in the life of the process', () => {
  it('still sends, though an earlier flush (a crash the app handled) gave up on the service, which answers again', async () => {
    receiver = await startOtlpReceiver({ reply: (_, index) => (index === 0 ? 'hang' : { status: 200 }) });
    const env = { WEFT_BASE_URL: receiver.url, WEFT_PROJECT: 'acme/exit-now', WEFT_API_KEY: API_KEY };
    const result = await runNode(['test/register/fixtures/handled-crash-then-exit.mjs'], env, { timeoutMs: 15_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('app logged one bad request');
    expect(receiver.spans().map((s) => s.name)).toEqual(expect.arrayContaining(['mid', 'last', 'early']));
    expect(countersAtExit(result.stdout)).toEqual({ spansEnded: 3, spansExported: 3, spansDropped: 0, droppedSpans: 0 });
  });

  it('sends what a shutdown() the app did not wait for had under way', async () => {
    const result = await run(() => ({ status: 200 }), { FIXTURE_END: 'shutdown' });
    expect(result.code, result.stderr).toBe(0);
    expect(receiver!.spans().map((s) => s.name)).toContain('at-exit');
    expect(countersAtExit(result.stdout)).toEqual({ spansEnded: 1, spansExported: 1, spansDropped: 0, droppedSpans: 0 });
  });
});

describe("the app's own exit listener, added before register()", () => {
  it('reads the counters after the last send', async () => {
    const result = await run(() => ({ status: 200 }), { FIXTURE_EARLY_EXIT_LISTENER: 'print' });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(/early listener (.*)/.exec(result.stdout)![1]!)).toMatchObject({ spansEnded: 1, spansExported: 1, spansQueued: 0 });
  });

  it('ending the process itself with process.exit(7) there, after the last send', async () => {
    const result = await run(() => ({ status: 200 }), { FIXTURE_EARLY_EXIT_LISTENER: 'exit' });
    expect(result.code, result.stderr).toBe(7);
    expect(receiver!.spans().map((s) => s.name)).toEqual(['at-exit']);
  });
});

describe('the last send, answered with a partial success', () => {
  it('counts as dropped no more spans than the request that was refused them held', async () => {
    const partial = { status: 200, body: '{"partial_success":{"rejected_spans":5,"error_message":"refused"}}' };
    const result = await run((index) => (index === 0 ? partial : { status: 200 }), { FIXTURE_SPANS: '3', FIXTURE_MAX_BATCH: '2' });
    expect(result.code, result.stderr).toBe(0);
    expect(countersAtExit(result.stdout)).toEqual({ spansEnded: 3, spansExported: 1, spansDropped: 2, droppedSpans: 2 });
  });
});

describe('a crash the app does not handle', () => {
  for (const end of ['crash', 'reject'] as const) {
    it(`(${end}) sends what is left once, though Node emits exit after the crash`, async () => {
      // The last send is refused: a second one, at the exit event, would find the span still queued and send it again.
      const result = await run(() => ({ status: 503 }), { FIXTURE_END: end, FIXTURE_EXIT_AFTER: '1' });
      expect(result.code, result.stderr).toBe(1);
      expect(receiver!.requests).toHaveLength(1);
      expect(countersAtExit(result.stdout)).toMatchObject({ spansEnded: 1, spansExported: 0, spansDropped: 1 });
    });
  }
});

/** A certificate for 127.0.0.1 that no CA signed, made with the openssl command; undefined where there is none. */
function selfSignedCertificate(dir: string): { cert: string; key: string } | undefined {
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
      '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
}

describe('the last send to an https service', () => {
  it("trusts the CA store the app chose on Node's command line (--use-openssl-ca with SSL_CERT_FILE), as the exporter does", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-tls-'));
    try {
      const pair = selfSignedCertificate(dir);
      if (!pair) return expect.fail('this test needs the openssl command, to make a certificate');
      let requests = 0;
      const server = createServer(pair, (req, res) => {
        requests++;
        req.resume();
        req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = server.address() as AddressInfo;
        const result = await runNode([fixture], {
          WEFT_BASE_URL: `https://127.0.0.1:${port}`,
          WEFT_PROJECT: 'acme/exit-now',
          WEFT_API_KEY: API_KEY,
          NODE_OPTIONS: '--use-openssl-ca',
          SSL_CERT_FILE: join(dir, 'cert.pem'),
        }, { timeoutMs: 15_000 });
        expect(result.code, result.stderr).toBe(0);
        expect(requests).toBe(1);
        expect(countersAtExit(result.stdout)).toMatchObject({ spansExported: 1, spansDropped: 0 });
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
