import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusCodeValue } from '../../src/otlp/index.js';
import { repoRoot, runNode } from '../helpers/child.js';
import { HELLO, type OpenAIServer, startOpenAIServer } from '../helpers/openai-server.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

/**
 * Automatic patching of older majors, which this repository installs under other names (`openai-v4`,
 * `openai-v6`). Each app gets a directory whose `node_modules/openai` links to one of them, so that
 * `require('openai')` and `import 'openai'` load it under its real name, as in a user's project. The directory
 * is inside the repository so that the old majors' own dependencies resolve; `--preserve-symlinks` keeps the
 * link's name.
 */

const fixtures = fileURLToPath(new URL('../fixtures/instrumentation/', import.meta.url));
let receiver: OtlpReceiver;
let server: OpenAIServer;
let workspace: string;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  server = await startOpenAIServer(HELLO);
  workspace = mkdtempSync(join(repoRoot, 'test', '.tmp-openai-majors-'));
});
afterAll(async () => {
  rmSync(workspace, { recursive: true, force: true });
  await server.close();
  await receiver.close();
});

function appWith(alias: string): string {
  const dir = join(workspace, alias);
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(join(repoRoot, 'node_modules', alias), join(dir, 'node_modules', 'openai'), 'dir');
  symlinkSync(repoRoot, join(dir, 'node_modules', 'weft'), 'dir');
  for (const file of ['chat-calls.cjs', 'chat-calls.mjs', 'helper-break.cjs', 'helper-break.mjs', 'helper-break-loop.cjs']) cpSync(join(fixtures, file), join(dir, file));
  return dir;
}

async function run(dir: string, args: string[], env: Record<string, string> = {}) {
  const before = receiver.spans().length;
  const result = await runNode(['--preserve-symlinks', ...args.slice(0, -1), join(dir, args.at(-1)!)], {
    ...env,
    WEFT_BASE_URL: receiver.url,
    WEFT_PROJECT: 'acme/older',
    OPENAI_BASE_URL: server.baseURL,
    OPENAI_API_KEY: 'sk-older-majors-0000',
  });
  return { result, spans: receiver.spans().slice(before) };
}

for (const { alias, major } of [
  { alias: 'openai-v4', major: '4.' },
  { alias: 'openai-v6', major: '6.' },
]) {
  describe(`openai ${major}x installed as openai`, () => {
    let dir: string;
    beforeAll(() => {
      dir = appWith(alias);
    });

    it('is patched automatically in a CommonJS app (-r weft/register)', async () => {
      const { result, spans } = await run(dir, ['-r', 'weft/register', 'chat-calls.cjs']);
      expect(result.stderr).toBe('');
      expect(JSON.parse(result.stdout)).toEqual({ content: 'Hello there!', chunks: 5, stream: 'Stream' });
      expect(server.requests.at(-1)?.headers['x-stainless-package-version']).toMatch(new RegExp(`^${major.replace('.', '\\.')}`));
      expect(spans.map((s) => s.name)).toEqual(['chat gpt-4o-mini', 'chat gpt-4o-mini']);
      expect(spans.map((s) => s.attributes['llm.usage.total_tokens'])).toEqual([15, 15]);
    });

    it('is patched automatically in an ES module app (--import weft/register)', async () => {
      const { result, spans } = await run(dir, ['--import', 'weft/register', 'chat-calls.mjs']);
      expect(result.stderr).toBe('');
      expect(JSON.parse(result.stdout)).toEqual({ content: 'Hello there!', chunks: 5, stream: 'Stream' });
      expect(spans.map((s) => s.name)).toEqual(['chat gpt-4o-mini', 'chat gpt-4o-mini']);
      expect(spans.map((s) => s.attributes['llm.usage.total_tokens'])).toEqual([15, 15]);
    });

    // openai 4 has its streaming helpers on a prototype of their own (beta.chat.completions), which weft patches too.
    describe('an app that leaves its streaming helper with break: the span ends with what came, not as failed', () => {
      for (const { how, args, env } of [
        { how: 'CommonJS, -r weft/register', args: ['-r', 'weft/register', 'helper-break.cjs'], env: {} },
        { how: 'ESM, --import weft/register', args: ['--import', 'weft/register', 'helper-break.mjs'], env: {} },
        { how: 'CommonJS, openai required before register()', args: ['helper-break.cjs'], env: { FIXTURE_REGISTER: 'late' } },
      ]) {
        it(how, async () => {
          server.reply({ ...HELLO, hangAfterChunks: 2 });
          try {
            const { result, spans } = await run(dir, args, env);
            expect(result.stderr).toBe('');
            expect(JSON.parse(result.stdout)).toEqual({ chunks: 2 });
            expect(spans).toHaveLength(1);
            expect(spans[0]?.status.code).toBe(StatusCodeValue.UNSET);
            expect(spans[0]?.attributes['error.type']).toBeUndefined();
            expect(spans[0]?.attributes['gen_ai.response.id']).toBe(HELLO.id);
          } finally {
            server.reply(HELLO);
          }
        });
      }
    });
  });
}
