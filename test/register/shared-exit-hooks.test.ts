import { afterEach, beforeEach, expect, it } from 'vitest';
import { register, weftSpanProcessor } from 'weft';
import { configError } from '../helpers/config-error.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

// register() and every weftSpanProcessor() hook the end of the process through one set of listeners: two sets
// would each take the other's signal listener for the app's, and neither would raise the signal again. The
// listeners stay while any of them is not shut down.

const EVENTS = ['beforeExit', 'exit', 'SIGTERM', 'SIGINT', 'uncaughtExceptionMonitor'] as const;
const ONE_SET = { beforeExit: 1, exit: 1, SIGTERM: 1, SIGINT: 1, uncaughtExceptionMonitor: 1 };
const NONE = { beforeExit: 0, exit: 0, SIGTERM: 0, SIGINT: 0, uncaughtExceptionMonitor: 0 };

let receiver: OtlpReceiver;
let before: number[];
/** The listeners added to the process since the test began. */
const added = () => Object.fromEntries(EVENTS.map((event, index) => [event, process.listenerCount(event) - before[index]!]));

beforeEach(async () => {
  receiver = await startOtlpReceiver();
  before = EVENTS.map((event) => process.listenerCount(event));
});
afterEach(() => receiver.close());

const options = () => ({ baseUrl: receiver.url, project: 'acme/shared-hooks' });

it('register() with a weftSpanProcessor() among its span processors adds one set, gone with its shutdown()', async () => {
  const weft = register({ ...options(), global: false, instrumentations: [], spanProcessors: [weftSpanProcessor(options())] });
  expect(added()).toEqual(ONE_SET);
  await weft.shutdown();
  expect(added()).toEqual(NONE);
});

it("keeps register()'s listeners when a weftSpanProcessor() of the app's is shut down first", async () => {
  const weft = register({ ...options(), global: false, instrumentations: [] });
  const processor = weftSpanProcessor(options());
  expect(added()).toEqual(ONE_SET);
  await processor.shutdown();
  expect(added()).toEqual(ONE_SET);
  await weft.shutdown();
  expect(added()).toEqual(NONE);
});

it('two weftSpanProcessor()s add one set, gone when both are shut down', async () => {
  const first = weftSpanProcessor(options());
  const second = weftSpanProcessor(options());
  expect(added()).toEqual(ONE_SET);
  await first.shutdown();
  await first.shutdown();
  expect(added()).toEqual(ONE_SET);
  await second.shutdown();
  expect(added()).toEqual(NONE);
});

it('refuses a flushOnExit that is not a boolean, naming the option, and hooks nothing', () => {
  const error = configError(() => weftSpanProcessor({ ...options(), flushOnExit: 'no' as unknown as boolean }));
  expect(error.option).toBe('flushOnExit');
  expect(error.message).toBe('weft: option `flushOnExit` must be true or false, got a string.');
  expect(added()).toEqual(NONE);
});

it('hooks nothing under OTEL_SDK_DISABLED=true, where the provider (NodeSDK\'s) never shuts its processors down', async () => {
  process.env.OTEL_SDK_DISABLED = 'true';
  try {
    const processor = weftSpanProcessor(options());
    expect(added()).toEqual(NONE);
    await processor.shutdown();
  } finally {
    delete process.env.OTEL_SDK_DISABLED;
  }
});
