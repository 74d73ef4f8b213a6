import { spawnSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { nodeRequire } from '../node-require.js';

/**
 * The program of the child that sends: it reads the OTLP bodies from stdin, each framed by its length (4 bytes, big
 * endian), and POSTs them one after the other to the URL with the headers of its `WEFT_LAST_SEND` variable. For
 * each body the service took (2xx) it writes the answer to stdout, framed the same way (for its partial success);
 * at the first it did not, it stops and writes only a status or an error code to stderr (never a header), and exits
 * non-zero. It stops itself a little before the parent's deadline, so that the answers it has are still read.
 * Plain Node, no module of the app's or of weft's: it runs with an empty `NODE_OPTIONS` and nothing else.
 */
const SCRIPT = `'use strict';
const target = JSON.parse(process.env.WEFT_LAST_SEND);
delete process.env.WEFT_LAST_SEND;
const stop = (why, code) => { process.stderr.write(why); process.exit(code); };
setTimeout(() => stop('no answer in time', 4), Math.max(1, target.deadline - Date.now())).unref();
const url = new URL(target.url);
const request = require(url.protocol === 'https:' ? 'node:https' : 'node:http').request;
const frame = (bytes) => { const head = Buffer.alloc(4); head.writeUInt32BE(bytes.length); return Buffer.concat([head, bytes]); };
const send = (bodies) => {
  const body = bodies.shift();
  if (!body) return;
  const req = request(url, { method: 'POST', headers: { ...target.headers, 'Content-Length': body.length } }, (res) => {
    const status = res.statusCode || 0;
    const answer = [];
    let size = 0;
    res.on('data', (chunk) => { size += chunk.length; if (size <= 65536) answer.push(chunk); });
    res.on('end', () => {
      if (status < 200 || status >= 300) stop('HTTP ' + status, 3);
      process.stdout.write(frame(Buffer.concat(answer)), () => send(bodies));
    });
    res.on('error', () => stop('the answer was cut', 4));
  });
  req.on('error', (error) => stop(String(error.code || 'the request failed'), 4));
  req.end(body);
};
const chunks = [];
process.stdin.on('data', (chunk) => chunks.push(chunk));
process.stdin.on('end', () => {
  const input = Buffer.concat(chunks);
  const bodies = [];
  for (let at = 0; at + 4 <= input.length; at += 4 + input.readUInt32BE(at)) bodies.push(input.subarray(at + 4, at + 4 + input.readUInt32BE(at)));
  send(bodies);
});
`;

/** `bytes` after its length, 4 bytes big endian: how bodies and answers pass between weft and the child. */
function framed(bytes: Uint8Array): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(bytes.length);
  return Buffer.concat([head, bytes]);
}

/** The frames of `output`, in order; a frame cut short (the child was stopped mid-write) is left out. */
function unframed(output: Buffer): Buffer[] {
  const frames: Buffer[] = [];
  for (let at = 0; at + 4 <= output.length; ) {
    const end = at + 4 + output.readUInt32BE(at);
    if (end > output.length) break;
    frames.push(output.subarray(at + 4, end));
    at = end;
  }
  return frames;
}

/** Where the last send goes, as the exporter sends: the traces URL and its headers (the API key among them). */
export interface LastSendTarget {
  url: string;
  headers: Record<string, string>;
  gzip: boolean;
  userAgent: string;
}

/**
 * How a last send went: the answers of the requests the service took, in order (for their partial success), and,
 * when not every request was taken, why: the rest were not sent, or not taken.
 */
export interface LastSendOutcome {
  answers: Uint8Array[];
  why?: string;
}

/** Whether this runtime is a Node single-executable app (its `execPath` is the app, not Node). */
function isSingleExecutable(): boolean {
  try {
    const sea = nodeRequire('node:sea') as { isSea?: () => boolean };
    return sea.isSea?.() === true;
  } catch {
    // No `node:sea` (Node before 20.12): an app could not be built as one with the documented tools.
    return false;
  }
}

/**
 * Why the synchronous send cannot be made in this process, or undefined when it can: it starts `process.execPath`
 * as Node, which only plain Node (or Electron run as Node) is. A single-executable app would start itself again;
 * Bun and Deno present themselves as Node but are not started the same way.
 */
export function cannotSendSynchronously(): string | undefined {
  const versions = process.versions as Record<string, string | undefined>;
  if (process.release?.name !== 'node' || versions.bun !== undefined || versions.deno !== undefined) return 'not Node';
  if (versions.electron !== undefined && process.env.ELECTRON_RUN_AS_NODE === undefined) return 'Electron';
  if (isSingleExecutable()) return 'a single-executable app';
  return undefined;
}

/**
 * What of the app's environment the child keeps: what Node needs to reach the service as the app does (the CA
 * certificates it trusts, from Node's or OpenSSL's variables, its choice on certificate checks, Windows' system root,
 * which sockets need) and Electron's switch to run as Node.
 */
const KEPT_VARIABLES = [
  'NODE_EXTRA_CA_CERTS',
  'NODE_TLS_REJECT_UNAUTHORIZED',
  'NODE_USE_SYSTEM_CA',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'OPENSSL_CONF',
  'SYSTEMROOT',
  'SystemRoot',
  'ELECTRON_RUN_AS_NODE',
];

/** Node's options that choose the CA store and TLS settings, which the app may give on its command line or in `NODE_OPTIONS`. */
const TLS_OPTION = /^--(use-openssl-ca|use-bundled-ca|use-system-ca|openssl-config=.+|openssl-shared-config|openssl-legacy-provider|tls-[a-z0-9.-]+(=.+)?)$/;

/** The app's TLS options, for the child to reach the service as the app does, and nothing else of its options. */
function tlsOptions(): string[] {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return [...new Set(given.filter((option) => TLS_OPTION.test(option)))];
}

/**
 * The environment of the child: its target, and nothing of the app's (no `NODE_OPTIONS`, which may load weft or
 * the app's hooks, no secret it does not need) but {@link KEPT_VARIABLES}.
 */
function childEnvironment(target: LastSendTarget, deadline: number): NodeJS.ProcessEnv {
  const headers: Record<string, string> = { ...target.headers, 'User-Agent': target.userAgent };
  if (target.gzip) headers['Content-Encoding'] = 'gzip';
  const env: NodeJS.ProcessEnv = { NODE_OPTIONS: '', WEFT_LAST_SEND: JSON.stringify({ url: target.url, headers, deadline }) };
  for (const name of KEPT_VARIABLES) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * Sends OTLP bodies now, synchronously, one request each, as the process ends and nothing asynchronous will run again
 * (its `exit` event, the monitor of an uncaught exception that ends it, just before a signal is raised again): a
 * child Node process makes the requests, one after the other, while this one waits for it, at most `timeoutMs` in
 * all (one process for all of them: starting Node takes tens of milliseconds). The target, API key included, goes
 * to the child in its environment, never in its arguments, which other users of the machine can read (`ps`).
 * Returns the answers of the requests the service took, in order, and why the next one failed, if one did.
 * Call {@link cannotSendSynchronously} first.
 */
export function sendSynchronously(bodies: readonly Uint8Array[], target: LastSendTarget, timeoutMs: number): LastSendOutcome {
  // The child stops itself a little before the parent's limit, so that the answers it has are still read.
  const deadline = Date.now() + Math.max(1, timeoutMs - Math.min(200, Math.floor(timeoutMs / 4)));
  const result = spawnSync(process.execPath, [...tlsOptions(), '-e', SCRIPT], {
    input: Buffer.concat(bodies.map((body) => framed(target.gzip ? gzipSync(body) : body))),
    env: childEnvironment(target, deadline),
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    stdio: ['pipe', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * (bodies.length + 1),
    windowsHide: true,
  });
  const answers = result.stdout ? unframed(result.stdout).slice(0, bodies.length) : [];
  if (answers.length === bodies.length) return { answers };
  if (result.error) {
    const code = (result.error as NodeJS.ErrnoException).code;
    return { answers, why: code === 'ETIMEDOUT' ? `no answer within ${timeoutMs} ms` : (code ?? 'the sender did not start') };
  }
  // Written by the program above: a status line or an error code, nothing of the request.
  const said = result.stderr?.toString('utf8').trim().slice(0, 80);
  return { answers, why: said || (result.signal ? `the sender ended by ${result.signal}` : `the sender exited ${result.status}`) };
}
