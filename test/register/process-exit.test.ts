import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runNode, startNode } from '../helpers/child.js';
import { deadOrigin } from '../helpers/dead-origin.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

// These run the built package in child processes (`npm test` builds first), as an app would.
const fixture = (name: string) => `test/fixtures/register/${name}`;

describe('spans survive the end of the process', () => {
  let receiver: OtlpReceiver;
  let env: Record<string, string>;

  beforeEach(async () => {
    receiver = await startOtlpReceiver();
    env = { WEFT_BASE_URL: receiver.url, WEFT_PROJECT: 'acme/exits' };
  });
  afterEach(() => receiver.close());

  it('flushes a short script that never calls shutdown()', async () => {
    const result = await runNode([fixture('short-lived.mjs')], env);
    expect(result.code).toBe(0);
    expect(receiver.spans().map((s) => s.name)).toEqual(['short-lived']);
  });

  it('keeps the exit code the script set', async () => {
    const result = await runNode([fixture('short-lived.mjs')], { ...env, FIXTURE_EXIT_CODE: '3' });
    expect(result.code).toBe(3);
    expect(receiver.spans()).toHaveLength(1);
  });

  it('flushes on SIGTERM and still ends by that signal', async () => {
    const app = startNode([fixture('long-running.mjs')], env);
    await app.waitForOutput('ready');
    app.child.kill('SIGTERM');
    const result = await app.exited;
    expect(result.signal).toBe('SIGTERM');
    expect(receiver.spans().map((s) => s.name)).toEqual(['before-signal']);
  });

  it('flushes on SIGINT and still ends by that signal', async () => {
    const app = startNode([fixture('long-running.mjs')], env);
    await app.waitForOutput('ready');
    app.child.kill('SIGINT');
    const result = await app.exited;
    expect(result.signal).toBe('SIGINT');
    expect(receiver.spans()).toHaveLength(1);
  });

  it("leaves SIGTERM to the app's own handler when it has one, and flushes alongside", async () => {
    const app = startNode([fixture('long-running.mjs')], { ...env, FIXTURE_OWN_HANDLER: '1' });
    await app.waitForOutput('ready');
    app.child.kill('SIGTERM');
    const result = await app.exited;
    expect(result.stdout).toContain('app handler ran');
    expect(result.code).toBe(7);
    expect(receiver.spans()).toHaveLength(1);
  });

  it('flushes before an uncaught exception ends the process with its usual code and message', async () => {
    const result = await runNode([fixture('crash.mjs')], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('app crashed on purpose');
    expect(receiver.spans().map((s) => s.name)).toEqual(['before-crash']);
  });
});

describe('a dead or hanging trace service at exit', () => {
  it('neither throws nor keeps a short script alive when nothing listens', async () => {
    const result = await runNode([fixture('short-lived.mjs')], { WEFT_BASE_URL: await deadOrigin(), WEFT_PROJECT: 'a/b' });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(/Unhandled|TypeError|at async/);
  });

  it('says what it could not send, and how to start weft dev, when the embedded default is not running', async () => {
    // Nothing configured: spans go to 127.0.0.1:4780, where no test starts a service.
    const result = await runNode([fixture('default-target.mjs')]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('could not send 1 span(s) to http://127.0.0.1:4780/otel/v1/traces as the process ended (ECONNREFUSED)');
    expect(result.stderr).toContain('npx weft dev');
    // A refused connection is not tried again after a pause as the process ends: nothing waits out the flush timeout.
    expect(result.stderr).not.toContain('gave up');
  });

  it('ends at once on a second SIGINT during the flush, sending nothing more, and says what it left unsent', async () => {
    const hanging = await startOtlpReceiver({ reply: () => 'hang' });
    const app = startNode([fixture('long-running.mjs')], { WEFT_BASE_URL: hanging.url, WEFT_PROJECT: 'a/b' });
    await app.waitForOutput('ready');
    app.child.kill('SIGINT');
    // The second signal comes while the flush waits for the service.
    for (const deadline = Date.now() + 10_000; hanging.requests.length === 0; ) {
      if (Date.now() > deadline) throw new Error('the flush sent no request');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    app.child.kill('SIGINT');
    const result = await app.exited;
    await hanging.close();
    expect(result.signal).toBe('SIGINT');
    // The flush's request only: no last send after the second signal.
    expect(hanging.requests).toHaveLength(1);
    expect(result.stderr).toMatch(/a second signal ended the process while weft was sending spans to \S+ at exit; 1 span\(s\) were not sent/);
  });

  it('exits after its flush timeout when the service never answers', async () => {
    const hanging = await startOtlpReceiver({ reply: () => 'hang' });
    const result = await runNode([fixture('short-lived.mjs')], { WEFT_BASE_URL: hanging.url, WEFT_PROJECT: 'a/b' });
    await hanging.close();
    expect(result.code).toBe(0);
    expect(hanging.requests).toHaveLength(1);
  });
});

describe('zero-code start with weft/register', () => {
  let receiver: OtlpReceiver;
  beforeEach(async () => {
    receiver = await startOtlpReceiver();
  });
  afterEach(() => receiver.close());

  it('traces an ES module app started with --import weft/register', async () => {
    const result = await runNode(['--import', 'weft/register', fixture('zero-code.mjs')], {
      WEFT_BASE_URL: receiver.url,
      WEFT_PROJECT: 'acme/zero',
      OTEL_SERVICE_NAME: 'zero-esm',
    });
    expect(result.code).toBe(0);
    const [span] = receiver.spans();
    expect(span?.name).toBe('zero-code-esm');
    expect(span?.resource).toMatchObject({ 'service.name': 'zero-esm', 'wandb.entity': 'acme', 'wandb.project': 'zero' });
  });

  it('traces a CommonJS app started with -r weft/register', async () => {
    const result = await runNode(['-r', 'weft/register', fixture('zero-code.cjs')], {
      WEFT_BASE_URL: receiver.url,
      WEFT_PROJECT: 'acme/zero',
    });
    expect(result.code).toBe(0);
    expect(receiver.spans().map((s) => s.name)).toEqual(['zero-code-cjs']);
  });

  it('says which options of an app that also calls register() were not applied, and what to do instead', async () => {
    const result = await runNode(['--import', 'weft/register', fixture('register-again.mjs')], {
      WEFT_BASE_URL: receiver.url,
      WEFT_PROJECT: 'acme/zero',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('project acme/zero');
    expect(result.stderr).toContain("register() was called again: this call's `project`, `serviceName` were not applied");
    expect(result.stderr).toContain(`spans go to acme/zero at ${receiver.url}/otel/v1/traces`);
    expect(result.stderr).toContain('weft/register');
    expect(result.stderr).toContain('WEFT_PROJECT');
    expect(result.stderr).toContain('instrumentOpenAI(OpenAI)');
    expect(receiver.spans()[0]?.resource).toMatchObject({ 'wandb.entity': 'acme', 'wandb.project': 'zero' });
  });

  it('starts the app untraced, with a clear warning, when the environment is wrong', async () => {
    const result = await runNode(['--import', 'weft/register', fixture('zero-code.mjs')], {
      WEFT_BASE_URL: receiver.url,
      WEFT_PROJECT: 'no-slash',
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('WEFT_PROJECT');
    expect(result.stderr).toContain('Tracing is off');
    expect(receiver.requests).toHaveLength(0);
  });

  it('starts the app untraced, with a warning naming WEFT_LOG_LEVEL, when that names no level', async () => {
    const result = await runNode(['-r', 'weft/register', fixture('zero-code.cjs')], {
      WEFT_BASE_URL: receiver.url,
      WEFT_PROJECT: 'acme/zero',
      WEFT_LOG_LEVEL: 'loud',
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('WEFT_LOG_LEVEL must be one of none, error, warn, info, debug, verbose, all; got "loud"');
    expect(result.stderr).toContain('Tracing is off');
    expect(receiver.requests).toHaveLength(0);
  });
});
