import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { afterEach, expect, it } from 'vitest';
import { op, register, type WeftHandle, weftSpanProcessor } from 'weft';
import { StatusCodeValue } from '../../src/otlp/index.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

// weftSpanProcessor().shutdown() ends the calls still running, as register()'s shutdown() does, so that an app whose
// SIGTERM handler shuts its NodeSDK down loses none (processor-exit.test.ts). Not while register() traces the
// process: its calls are its own, and run on after another provider stops.

let receiver: OtlpReceiver | undefined;
let weft: WeftHandle | undefined;
afterEach(async () => {
  await weft?.shutdown();
  await receiver?.close();
});

it("leaves register()'s calls running when a provider of its own shuts down", async () => {
  receiver = await startOtlpReceiver();
  weft = register({ baseUrl: receiver.url, project: 'acme/main', instrumentations: [], flushOnExit: false, logger: false });
  const other = new BasicTracerProvider({
    spanProcessors: [weftSpanProcessor({ baseUrl: receiver.url, project: 'acme/other', flushOnExit: false })],
  });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const running = op(async function still_running() {
    await gate;
    return 'ok';
  })();
  await other.shutdown();
  release();
  expect(await running).toBe('ok');
  await weft.forceFlush();
  const [span] = await receiver.waitForSpans(1);
  expect(span?.name).toBe('still_running');
  expect(span?.status.code).toBe(StatusCodeValue.UNSET);
});
