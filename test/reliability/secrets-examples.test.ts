import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DevService, startDevService } from 'weft/dev';
import { type ChildResult, runNode } from '../helpers/child.js';
import { type Exchange, exchangedText, type RecordingProxy, startRecordingProxy } from './helpers/recording-proxy.js';

// Every example, run to its end against a real `weft dev` that requires a recognisable API key, through a proxy
// that records every byte: the key may travel in the Authorization header, and nowhere else, whatever the
// example does (trace, read back, train, chat, stream).

const WEFT_KEY = 'wk-canary-examples-3e9d51c07a4b';
const CANARIES = [WEFT_KEY, WEFT_KEY.slice(-12)];

function leaksIn(where: string, text: string): string[] {
  return CANARIES.filter((c) => text.includes(c)).map((c) => `${where} contains ${c}`);
}

const examplesDir = fileURLToPath(new URL('../../examples/', import.meta.url));
const examples = readdirSync(examplesDir).filter((f) => /\.(ts|mts|js|mjs|cjs)$/.test(f));

let dataDir: string;
let dev: DevService;
let proxy: RecordingProxy;
const devLog: string[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'weft-secrets-'));
  dev = await startDevService({
    port: 0,
    apiKey: WEFT_KEY,
    dataFile: join(dataDir, 'traces.jsonl'),
    log: (line) => devLog.push(line),
    // Simulated training steps this short keep the training example to a second.
    trainingStepMs: 20,
  });
  proxy = await startRecordingProxy(dev.url);
});
afterAll(async () => {
  await proxy?.close();
  await dev?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

// In the order written, even shuffled (npm run test:shake): the last test reads what every example left behind.
describe('every example, run with a recognisable key', { shuffle: false }, () => {
  it('finds the examples to run', () => {
    expect(examples).toEqual(expect.arrayContaining(['demo.ts', 'quickstart.ts', 'evaluation.ts', 'trace-client.ts', 'training.ts']));
  });

  for (const example of examples) {
    describe(`examples/${example}, with weft dev requiring the key`, () => {
      let run: ChildResult;
      let exchanges: Exchange[];
      beforeAll(async () => {
        const before = proxy.exchanges.length;
        run = await runNode(['--import', 'tsx', `${examplesDir}${example}`], {
          WEFT_API_KEY: WEFT_KEY,
          WEFT_BASE_URL: proxy.url,
          WEFT_INFERENCE_BASE_URL: `${proxy.url}/v1`,
          WEFT_TRAINING_BASE_URL: `${proxy.url}/v1`,
          WEFT_PROJECT: `secrets/${example.replace(/\.\w+$/, '')}`,
          WEFT_LOG_LEVEL: 'verbose',
        });
        exchanges = proxy.exchanges.slice(before);
      }, 60_000);

      it('runs to its end (exit code 0), its spans exported to weft dev', () => {
        expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
        expect(exchanges.some((e) => e.method === 'POST' && e.path === '/otel/v1/traces' && e.status === 200)).toBe(true);
      });

      it('sends the key in the Authorization header of every request, and nowhere else', () => {
        expect(exchanges.length).toBeGreaterThan(0);
        expect(exchanges.filter((e) => e.authorization !== `Bearer ${WEFT_KEY}`).map((e) => `${e.method} ${e.path}`)).toEqual([]);
        expect(leaksIn('what it exchanged with weft dev', exchangedText(exchanges))).toEqual([]);
      });

      it('prints no key', () => {
        expect([...leaksIn('stdout', run.stdout), ...leaksIn('stderr', run.stderr)]).toEqual([]);
      });
    });
  }

  it("leaves no key in weft dev's data file or log, after every example", () => {
    const data = readFileSync(join(dataDir, 'traces.jsonl'), 'utf8');
    expect(data.length).toBeGreaterThan(0);
    expect([...leaksIn('the data file', data), ...leaksIn("weft dev's log", devLog.join('\n'))]).toEqual([]);
  });
});
