import { currentSpan, op, register } from 'weft';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { recordingLogger } from '../helpers/recording-logger.js';

const logger = recordingLogger();
let receiver: OtlpReceiver;
let weft: ReturnType<typeof register>;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  weft = register({ baseUrl: receiver.url, project: 'test/handle', instrumentations: [], flushOnExit: false, logger });
});
afterAll(async () => {
  await weft.shutdown();
  await receiver.close();
});

// The handle is documented as safe to use on any span: one kept past its span's end (a callback that fires late)
// changes nothing and says nothing, where the SDK would log a warning with a stack trace at every call.
it('a span handle kept past its span’s end changes nothing, quietly', async () => {
  const kept = await op(async function answer() {
    return currentSpan();
  })();
  kept.setOutput('late').setAttributes({ late: true }).setDisplayName('late').setKind('llm');
  await weft.forceFlush();
  const [span] = receiver.spans();
  expect(span?.attributes).not.toHaveProperty(['wandb.attributes.late']);
  expect(span?.attributes).not.toHaveProperty(['wandb.display_name']);
  expect(logger.lines.filter((line) => /ended Span/.test(line))).toEqual([]);
});
