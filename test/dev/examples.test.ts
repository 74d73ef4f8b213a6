import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runNode, startNode } from '../helpers/child.js';
import { devService, opNameOf, streamQuery } from './support.js';

// The examples run with tsx, which resolves `weft` to the source through tsconfig.json's paths.
describe('the examples', () => {
  it('npm start: the demo runs the quickstart against weft dev and prints the trace tree', async () => {
    const result = await runNode(['--import', 'tsx', 'examples/demo.ts']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('eval:     3/3 correct');
    expect(result.stdout).toMatch(/read back with weft's Client: 4 traces/);
    expect(result.stdout).toMatch(/^ {2}chat_tour\s+\d+ ms\s+✓ success$/m);
    expect(result.stdout).toMatch(/ {2}├─ get_weather.*\n {2}└─ chat meta-llama/);
    expect(result.stdout).toMatch(/│ {2}└─ chat meta-llama\/Llama-3\.1-8B-Instruct\s+meta-llama\/Llama-3\.1-8B-Instruct\s+14 \(8→6\)/);
    expect(result.stdout).toMatch(/thread eval-\S+: 3 turns/);
  });

  it('npm run dev, which the demo says to try next, starts weft dev in a clone, where `npx weft` finds no command', async () => {
    const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    const [node, ...args] = scripts.dev!.split(' ');
    expect(node).toBe('node');
    const dev = startNode([...args, '--port', '0']);
    await dev.waitForOutput('weft dev listening on http://127.0.0.1:');
    dev.child.kill('SIGTERM');
    expect((await dev.exited).code).toBe(0);
  });

  it('the quickstart runs on its own against a dev service given by the environment', async () => {
    const dev = await devService();
    const result = await runNode(['--import', 'tsx', 'examples/quickstart.ts'], {
      WEFT_BASE_URL: dev.url,
      WEFT_INFERENCE_BASE_URL: dev.v1Url,
      WEFT_PROJECT: 'me/quickstart',
      // An OpenAI user's environment: openai would send it as OpenAI-Project, which the service refuses (401).
      OPENAI_PROJECT_ID: 'proj_abc123',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('plain:    6 * 7 = 42.');
    const roots = await streamQuery(dev.url, { project_id: 'me/quickstart', filter: { trace_roots_only: true } });
    expect(roots.map(opNameOf)).toEqual(['chat_tour', 'evaluate_row', 'evaluate_row', 'evaluate_row']);
  });
});

describe('the client examples', () => {
  it('training.ts fine-tunes, watches the job to the end, and chats, against weft dev', async () => {
    const dev = await devService();
    // The service addresses as a user's defaults derive them from WEFT_BASE_URL.
    const result = await runNode(['--import', 'tsx', 'examples/training.ts'], {
      WEFT_BASE_URL: dev.url,
      WEFT_PROJECT: 'me/tuning',
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('model:      me/tuning/support-tuned');
    expect(result.stdout).toMatch(/^step 1: {4}loss \d/m);
    expect(result.stdout).toContain('job:        succeeded');
    expect(result.stdout).toMatch(/^checkpoint: step [1-9]/m);
    expect(result.stdout).toContain('chat:       You said: Summarise the training run in one line.');
    const chats = await streamQuery(dev.url, { project_id: 'me/tuning', filter: { trace_roots_only: true } });
    // The op of a span named `chat <model>`: the service's safe name lowercases it and turns spaces and slashes into `_`.
    expect(chats.map(opNameOf)).toEqual([expect.stringMatching(/^chat_/)]);
  });

  it('trace-client.ts reads its call back, adds feedback and stores a dataset, against weft dev', async () => {
    const dev = await devService();
    const result = await runNode(['--import', 'tsx', 'examples/trace-client.ts'], {
      WEFT_BASE_URL: dev.url,
      WEFT_PROJECT: 'me/triage',
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('trace:    triage → classify({"ticket":"I want a refund for order 1234"}) = "billing"');
    expect(result.stdout).toContain('feedback: 1 note(s) on the call');
    expect(result.stdout).toMatch(/dataset: {2}triage-examples:\S+ with 2 rows/);
  });
});
