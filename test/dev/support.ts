import { afterEach } from 'vitest';
import { type DevService, type DevServiceOptions, startDevService } from 'weft/dev';

/** Parsed JSON of a reply: tests read into it freely and let the assertions check the shape. */
// biome-ignore lint/suspicious/noExplicitAny: the one loose type of the dev tests, for parsed JSON
export type Json = any;

/** A JSON answer: the status and the parsed body. */
export interface JsonReply<T = Json> {
  status: number;
  body: T;
  headers: Headers;
}

/** Sends a request with an optional JSON body and parses the JSON answer. */
export async function request<T = Json>(
  url: string,
  method: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<JsonReply<T>> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text), headers: res.headers };
}

/** POSTs JSON. */
export const post = <T = Json>(base: string, path: string, body: unknown, headers?: Record<string, string>) =>
  request<T>(`${base}${path}`, 'POST', body, headers);

/** GETs JSON. */
export const get = <T = Json>(base: string, path: string, headers?: Record<string, string>) =>
  request<T>(`${base}${path}`, 'GET', undefined, headers);

/** Runs `/calls/stream_query` and parses the JSONL lines. */
export async function streamQuery(base: string, body: Record<string, unknown>): Promise<Json[]> {
  const res = await fetch(`${base}/calls/stream_query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`stream_query answered ${res.status}: ${await res.text()}`);
  return (await res.text())
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

/** The op's name in an OTel call's `op_name`, a ref `weave:///<entity>/<project>/op/<name>:<digest>`. */
export function opNameOf(call: { op_name: string }): string {
  const name = /^weave:\/\/\/[^/]+\/[^/]+\/op\/(.+):[^:]+$/.exec(call.op_name)?.[1];
  if (name === undefined) throw new Error(`op_name is not an op ref: ${call.op_name}`);
  return decodeURIComponent(name);
}

const running: DevService[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

/** Starts a dev service on a free port that is closed after the test. */
export async function devService(options: DevServiceOptions = {}): Promise<DevService> {
  const service = await startDevService({ port: 0, log: false, ...options });
  running.push(service);
  return service;
}

/** A call start body with the required fields. */
export function startBody(fields: Record<string, unknown> = {}) {
  return {
    start: {
      project_id: 'team/proj',
      op_name: 'predict',
      started_at: '2026-01-01T00:00:00.000Z',
      attributes: {},
      inputs: { question: 'hi' },
      ...fields,
    },
  };
}

/** A call end body with the required fields. */
export function endBody(id: string, fields: Record<string, unknown> = {}) {
  return {
    end: { project_id: 'team/proj', id, ended_at: '2026-01-01T00:00:01.500Z', summary: {}, output: 'hello', ...fields },
  };
}
