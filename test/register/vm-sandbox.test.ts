import { afterEach, describe, expect, it } from 'vitest';
import { runNode } from '../helpers/child.js';
import { type OtlpReceiver, spanNamed, startOtlpReceiver } from '../helpers/otlp-receiver.js';

let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

describe("an app's test suite on vitest's vmThreads pool, a VM sandbox with no module loader to hook", () => {
  it('runs: register() and instrumentOpenAI() go on without the openai instrumentation, say why once, and ops are exported', async () => {
    receiver = await startOtlpReceiver();
    const dir = 'test/fixtures/register/vitest-vm';
    const result = await runNode(['node_modules/vitest/vitest.mjs', 'run', '--root', dir, '--config', 'vitest.config.mjs'], {
      WEFT_BASE_URL: receiver.url,
      WEFT_PROJECT: 'team/vm',
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const output = result.stdout + result.stderr;
    expect(output).toContain('1 passed');
    expect(output.match(/could not set up its openai instrumentation/g)).toHaveLength(1);
    expect(output).toContain("vitest's vmThreads pool");
    expect(spanNamed(receiver.spans(), 'answer').attributes.output).toBe('why: 42');
  });
});
