import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Client } from 'weft';
import { type LoopbackServer, sendJson, startLoopbackServer } from '../inference/loopback-server.js';
import { closeClients, inferenceClient, trainingClient } from '../inference/support.js';

const FIXTURE = new URL('./fixtures/spec-parts-b-c.md', import.meta.url);
const SPEC = new URL('../../../../shared/spec/service-interface.md', import.meta.url);

/** `METHOD /v1/path` pairs of spec parts B (training) and C (inference, whose base URL ends in `/v1`). */
function parseEndpoints(markdown: string): string[] {
  const endpoints = markdown.slice(Math.max(0, markdown.indexOf('## 4. Endpoints')));
  const training = endpoints.slice(endpoints.indexOf('### B. Training service'), endpoints.indexOf('### C. Inference service'));
  const inference = endpoints.slice(endpoints.indexOf('### C. Inference service'));
  const rows = [...training.matchAll(/^\|\s*[^|]+\|\s*(GET|POST|PUT|DELETE|PATCH)\s*\|\s*`([^`]+)`/gm)].map((m) => `${m[1]} ${m[2]}`);
  const headings = [...inference.matchAll(/^\*\*(GET|POST|PUT|DELETE|PATCH) `([^`]+)`\*\*/gm)].map((m) => `${m[1]} /v1${m[2]}`);
  return [...rows, ...headings];
}

function sectionsOf(markdown: string): string {
  // Section 2 of the spec has a heading of the same name; the endpoints are in section 4.
  const endpoints = markdown.slice(Math.max(0, markdown.indexOf('## 4. Endpoints')));
  const start = endpoints.indexOf('### B. Training service');
  const end = endpoints.indexOf('## 5. Authentication');
  return endpoints.slice(start, end === -1 ? undefined : end).trim();
}

function matches(template: string, actual: string): boolean {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(actual);
}

let server: LoopbackServer | undefined;

afterEach(async () => {
  await closeClients();
  await server?.close();
  server = undefined;
});

/** One call per operation of the two clients, each with the least valid input. */
async function callEveryOperation(inference: Client['inference'], training: Client['training']): Promise<void> {
  const chat = { model: 'm/x', messages: [{ role: 'user' as const, content: 'Hi' }] };
  await inference.chat.completions.create(chat);
  await inference.models.list();
  await training.chat.completions.create(chat);
  await training.chat.completions.create(chat, { trailingSlash: true });
  await training.models.create({ project: 'p', name: 'n', base_model: 'OpenPipe/Qwen3-14B-Instruct' });
  await training.models.delete('model-1');
  await training.models.checkpoints.list('model-1');
  await training.models.checkpoints.delete('model-1', { steps: [1] });
  await training.models.log('model-1', { split: 'val', trajectory_groups: [] });
  await training.jobs.createSft({ model_id: 'model-1', training_data_url: 'wandb-artifact:///e/p/d:v0' });
  await training.jobs.createRl({ model_id: 'model-1', trajectory_groups: [] });
  await training.jobs.get('job-1');
  await training.jobs.events.list('job-1');
  await training.health();
  await training.systemCheck();
}

describe('spec coverage of the training and inference clients', () => {
  it('keeps the committed copy of spec parts B and C equal to the spec, when the spec is present', () => {
    if (!existsSync(SPEC)) return;
    expect(sectionsOf(readFileSync(FIXTURE, 'utf8'))).toBe(sectionsOf(readFileSync(SPEC, 'utf8')));
  });

  it('reaches every method and path of spec parts B and C, and no other', async () => {
    const expected = parseEndpoints(readFileSync(FIXTURE, 'utf8'));
    expect(expected).toHaveLength(15);
    server = await startLoopbackServer((req, res) => {
      const list = req.method === 'GET' && /checkpoints|events|models$/.test(req.path);
      sendJson(res, 200, list ? { object: 'list', data: [], has_more: false } : { id: 'x', choices: [] });
    });
    await callEveryOperation(inferenceClient(server.origin), trainingClient(server.origin));

    const sent = server.requests.map((r) => `${r.method} ${r.path}`);
    const unreached = expected.filter((endpoint) => !sent.some((actual) => matches(endpoint, actual)));
    const unknown = sent.filter((actual) => !expected.some((endpoint) => matches(endpoint, actual)));
    expect(unreached).toEqual([]);
    expect(unknown).toEqual([]);
  });
});
