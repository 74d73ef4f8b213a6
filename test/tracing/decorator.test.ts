import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecodedSpan } from '../../src/otlp/index.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { inputsOf, named, outputOf } from './harness.js';

// Needs the built package (`npm run build`), as a user's app would import it.
const fixture = fileURLToPath(new URL('./fixtures/decorated.ts', import.meta.url));
const root = fileURLToPath(new URL('../../', import.meta.url));

let receiver: OtlpReceiver;
let spans: DecodedSpan[];
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  await promisify(execFile)(process.execPath, ['--import', 'tsx', fixture], {
    cwd: root,
    env: { ...process.env, WEFT_BASE_URL: receiver.url, WEFT_PROJECT: 'test/decorators' },
  });
  spans = receiver.spans();
});
afterAll(() => receiver.close());

describe('@traced() with TypeScript 5 standard decorators', () => {
  it('names the span ClassName.method, keeps `this` and records named arguments', () => {
    const span = named(spans, 'Model.predict');
    expect(inputsOf(span)).toEqual({ question: 'hi' });
    expect(span.attributes.output).toBe('hi!');
  });

  it('names the span after the subclass when a subclass instance calls the method', () => {
    expect(named(spans, 'TunedModel.predict').attributes.output).toBe('yo?');
  });

  it('takes options such as name and kind', () => {
    const span = named(spans, 'score');
    expect(outputOf(span)).toEqual({ correct: true });
    expect(span.attributes['weave.span.kind']).toBe('scorer');
    expect(inputsOf(span)).toEqual({ expected: 'hi!', output: 'hi!' });
  });

  it('traces a generic method', () => {
    const span = named(spans, 'Model.echo');
    expect(inputsOf(span)).toEqual({ value: { n: 1 } });
    expect(outputOf(span)).toEqual({ n: 1 });
  });

  it('traces static methods under the class name', () => {
    expect(inputsOf(named(spans, 'Model.create'))).toEqual({ suffix: '!' });
  });
});
