import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChatCompletionRequest,
  type ChatTracingConfig,
  resolveChatTracingConfig,
  traceChatCompletion,
  WeftConfigError,
} from 'weft';
import { type Harness, json, startHarness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const REQUEST: ChatCompletionRequest = {
  model: 'm',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'My card is 4111111111111111' },
  ],
  tools: [{ type: 'function', function: { name: 'pay', description: 'Pays', parameters: { type: 'object' } } }],
};
const COMPLETION = {
  id: 'c',
  model: 'm',
  choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Paid with 4111111111111111' } }],
};

/** Runs one traced call with this config and returns the exported span's attributes. */
async function record(config: ChatTracingConfig, request: ChatCompletionRequest = REQUEST, completion: unknown = COMPLETION) {
  const tracer = h.handle.tracerProvider.getTracer('content-test');
  await traceChatCompletion(tracer, request, async () => completion, { config: resolveChatTracingConfig(config, {}) });
  const [span] = await h.spans(1);
  return span!.attributes;
}

const CONTENT = ['gen_ai.input.messages', 'gen_ai.system_instructions', 'gen_ai.output.messages'];
const present = (attributes: Record<string, unknown>) => CONTENT.filter((k) => k in attributes);

describe('content capture', () => {
  it('records input, system instructions and output by default', async () => {
    const attributes = await record({});
    expect(present(attributes)).toEqual(CONTENT);
    expect(json(attributes['gen_ai.system_instructions'])).toEqual([{ type: 'text', content: 'Be brief.' }]);
  });

  it('keeps a request of system messages alone as its input messages too, which the trace service shows', async () => {
    const attributes = await record({}, { model: 'm', messages: [{ role: 'system', content: 'Say hi.' }] });
    expect(json(attributes['gen_ai.system_instructions'])).toEqual([{ type: 'text', content: 'Say hi.' }]);
    expect(json(attributes['gen_ai.input.messages'])).toEqual([{ role: 'system', parts: [{ type: 'text', content: 'Say hi.' }] }]);
  });

  it('records no content, and tool names without their schemas, when turned off', async () => {
    const attributes = await record({ captureContent: false });
    expect(present(attributes)).toEqual([]);
    expect(json(attributes['gen_ai.tool.definitions'])).toEqual([{ type: 'function', name: 'pay' }]);
    expect(JSON.stringify(attributes)).not.toContain('4111');
  });

  it("records only the input side with 'input'", async () => {
    expect(present(await record({ captureContent: 'input' }))).toEqual(['gen_ai.input.messages', 'gen_ai.system_instructions']);
  });

  it("records only the output side with 'output'", async () => {
    expect(present(await record({ captureContent: 'output' }))).toEqual(['gen_ai.output.messages']);
  });

  it('follows WEFT_CAPTURE_CONTENT, then OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT, and the option over both', () => {
    expect(resolveChatTracingConfig({}, { WEFT_CAPTURE_CONTENT: 'output' })).toMatchObject({ captureInput: false, captureOutput: true });
    expect(resolveChatTracingConfig({}, { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'false' })).toMatchObject({
      captureInput: false,
      captureOutput: false,
    });
    expect(
      resolveChatTracingConfig({}, { WEFT_CAPTURE_CONTENT: 'all', OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'false' }),
    ).toMatchObject({ captureInput: true, captureOutput: true });
    expect(resolveChatTracingConfig({ captureContent: 'input' }, { WEFT_CAPTURE_CONTENT: 'none' })).toMatchObject({
      captureInput: true,
      captureOutput: false,
    });
  });

  it("takes the variable's words in code too: 'all' and 'none'", () => {
    expect(resolveChatTracingConfig({ captureContent: 'all' }, { WEFT_CAPTURE_CONTENT: 'none' })).toMatchObject({
      captureInput: true,
      captureOutput: true,
    });
    expect(resolveChatTracingConfig({ captureContent: 'none' }, {})).toMatchObject({ captureInput: false, captureOutput: false });
  });

  it('rejects a value it cannot use with an error that names the option or variable', () => {
    expect(() => resolveChatTracingConfig({ captureContent: 'yes' as never }, {})).toThrow(WeftConfigError);
    expect(() => resolveChatTracingConfig({ captureContent: 'yes' as never }, {})).toThrow(/captureContent/);
    expect(() => resolveChatTracingConfig({}, { WEFT_CAPTURE_CONTENT: 'sometimes' })).toThrow(/WEFT_CAPTURE_CONTENT/);
    expect(() => resolveChatTracingConfig({ maxMessageLength: 3 }, {})).toThrow(/maxMessageLength/);
  });
});

describe('the redaction hook', () => {
  const maskCards: ChatTracingConfig['redactContent'] = (messages) =>
    messages.map((m) => ({
      ...m,
      parts: m.parts.map((p) => (p.type === 'text' ? { ...p, content: String(p.content).replace(/\d{16}/g, '[card]') } : p)),
    }));

  it('rewrites input and output messages before they are recorded', async () => {
    const attributes = await record({ redactContent: maskCards });
    expect(json(attributes['gen_ai.input.messages'])).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'My card is [card]' }] }]);
    expect(json(attributes['gen_ai.output.messages'])).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'Paid with [card]' }], finish_reason: 'stop' },
    ]);
  });

  it('leaves a side out when it returns null', async () => {
    const attributes = await record({ redactContent: (messages, direction) => (direction === 'output' ? null : messages) });
    expect(present(attributes)).toEqual(['gen_ai.input.messages', 'gen_ai.system_instructions']);
  });

  it('leaves content out, and the call unharmed, when it throws', async () => {
    const attributes = await record({
      redactContent: () => {
        throw new Error('hook bug');
      },
    });
    expect(present(attributes)).toEqual([]);
    expect(attributes['gen_ai.response.id']).toBe('c');
  });

  it('leaves content out when it returns arrays dressed as messages, which would be recorded as empty lists', async () => {
    const attributes = await record({
      redactContent: (messages) => messages.map((m) => Object.assign([], { role: m.role, parts: m.parts })) as never,
    });
    expect(attributes).not.toHaveProperty('gen_ai.input.messages');
    expect(attributes).not.toHaveProperty('gen_ai.output.messages');
  });
});

describe('when the input is recorded', () => {
  // It is serialized when the span ends, not before the call: a long conversation would delay the request.
  it('records the messages the call was made with, even if the app adds to them right after the call', async () => {
    const messages: { role: 'user'; content: string }[] = [{ role: 'user', content: 'first question' }];
    const tracer = h.handle.tracerProvider.getTracer('content-test');
    const pending = traceChatCompletion(tracer, { model: 'm', messages }, async () => COMPLETION);
    messages.push({ role: 'user', content: 'added after the call' });
    await pending;
    const [span] = await h.spans(1);
    expect(json(span?.attributes['gen_ai.input.messages'])).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'first question' }] }]);
  });

  it('records them on a span that ends before the request would have left', async () => {
    const tracer = h.handle.tracerProvider.getTracer('content-test');
    const failure = new Error('refused before sending');
    const thrown = (() => {
      try {
        traceChatCompletion(tracer, REQUEST, () => {
          throw failure;
        });
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBe(failure);
    const [span] = await h.spans(1);
    expect(json(span?.attributes['gen_ai.input.messages'])).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'My card is 4111111111111111' }] },
    ]);
    expect(span?.attributes['error.type']).toBe('Error');
  });
});

describe('truncation', () => {
  it('cuts a long message inside its text, keeping the JSON valid and marking the cut', async () => {
    const long = 'x'.repeat(100_000);
    const attributes = await record({ maxMessageLength: 1000 }, { model: 'm', messages: [{ role: 'user', content: long }] });
    const raw = attributes['gen_ai.input.messages'] as string;
    const [message] = json(raw) as { role: string; parts: { type: string; content: string }[] }[];
    expect(JSON.stringify(message).length).toBeLessThanOrEqual(1000);
    expect(message?.role).toBe('user');
    expect(message?.parts[0]?.content).toMatch(/^x+…\[weft: \d+ more chars\]$/);
    const kept = message!.parts[0]!.content.match(/^x+/)![0].length;
    expect(message?.parts[0]?.content).toContain(`[weft: ${100_000 - kept} more chars]`);
  });

  it('keeps a whole conversation within the attribute limit, newest messages first', async () => {
    const messages = Array.from({ length: 200 }, (_, i) => ({ role: 'user', content: `message ${i} ${'y'.repeat(200)}` }));
    const attributes = await record({ maxAttributeLength: 4096 }, { model: 'm', messages });
    const raw = attributes['gen_ai.input.messages'] as string;
    expect(raw.length).toBeLessThanOrEqual(4096);
    const parsed = json(raw) as { role: string; parts: { content: string }[] }[];
    expect(parsed[0]?.role).toBe('_truncated');
    expect(parsed[0]?.parts[0]?.content).toBe(`[weft: ${200 - (parsed.length - 1)} earlier messages left out]`);
    expect(parsed.at(-1)?.parts[0]?.content).toMatch(/^message 199 /);
  });

  it('never splits a character made of two UTF-16 units', async () => {
    const attributes = await record({ maxMessageLength: 300 }, { model: 'm', messages: [{ role: 'user', content: '😀'.repeat(1000) }] });
    const raw = attributes['gen_ai.input.messages'] as string;
    expect(raw).not.toMatch(/\\ud83d(?!\\ude00)/);
    const content = (json(raw) as { parts: { content: string }[] }[])[0]!.parts[0]!.content;
    expect(content.replace(/…\[weft: \d+ more chars\]$/, '')).toMatch(/^(😀)+$/u);
  });

  it('stays within the limits for text that JSON escapes heavily, and for huge tool arguments', async () => {
    const escaped = '"\\\n\u0001😀é'.repeat(3000);
    const bigArguments = JSON.stringify(Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`key${i}`, i])));
    const attributes = await record(
      { maxMessageLength: 600, maxAttributeLength: 2000 },
      {
        model: 'm',
        messages: [
          { role: 'user', content: escaped },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: bigArguments } }],
          },
          { role: 'tool', tool_call_id: 'call_1', content: escaped },
        ],
      },
    );
    const raw = attributes['gen_ai.input.messages'] as string;
    expect(raw.length).toBeLessThanOrEqual(2000);
    const messages = json(raw) as { role: string }[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    for (const message of messages) expect(JSON.stringify(message).length).toBeLessThanOrEqual(600);
  });

  it('takes its attribute limit from the SDK’s environment variables', () => {
    expect(resolveChatTracingConfig({}, { OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: '5000' }).maxAttributeLength).toBe(5000);
    expect(resolveChatTracingConfig({}, { OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '6000' }).maxMessageLength).toBe(6000);
  });
});

describe('message parts', () => {
  it('records images as blob parts when inline and uri parts when linked, and audio as blobs', async () => {
    const attributes = await record(
      {},
      {
        model: 'm',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
              { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
              { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
            ],
          },
        ],
      },
    );
    expect(json(attributes['gen_ai.input.messages'])).toEqual([
      {
        role: 'user',
        parts: [
          { type: 'text', content: 'What is this?' },
          { type: 'blob', modality: 'image', mime_type: 'image/png', content: 'iVBORw0KGgo=' },
          { type: 'uri', modality: 'image', uri: 'https://example.com/cat.jpg' },
          { type: 'blob', modality: 'audio', mime_type: 'audio/wav', content: 'UklGRg==' },
        ],
      },
    ]);
  });

  it('names the provider from well-known hosts, and openai for any other', async () => {
    const tracer = h.handle.tracerProvider.getTracer('content-test');
    const urls = [
      'https://my-resource.openai.azure.com/openai/deployments/x',
      'https://my-foundry.cognitiveservices.azure.com/openai',
      'https://api.groq.com/openai/v1',
      'https://api.deepseek.com',
      'http://localhost:8000/v1',
    ];
    for (const serverUrl of urls) await traceChatCompletion(tracer, { model: 'm' }, async () => COMPLETION, { serverUrl });
    const spans = await h.spans(urls.length);
    expect(spans.map((s) => s.attributes['gen_ai.provider.name'])).toEqual(['azure.ai.openai', 'azure.ai.openai', 'groq', 'deepseek', 'openai']);
    expect(spans.map((s) => s.attributes['server.port'])).toEqual([443, 443, 443, 443, 8000]);
  });

  it('records bare base64 file data as a blob part, not a uri, and mp3 audio as audio/mpeg', async () => {
    const attributes = await record(
      {},
      {
        model: 'm',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'file', file: { file_data: 'JVBERi0xLjQ=', filename: 'a.pdf' } },
              { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0xLjQ=' } },
              { type: 'input_audio', input_audio: { data: 'SUQz', format: 'mp3' } },
            ],
          },
        ],
      } as ChatCompletionRequest,
    );
    expect(json(attributes['gen_ai.input.messages'])).toEqual([
      {
        role: 'user',
        parts: [
          { type: 'blob', modality: 'document', content: 'JVBERi0xLjQ=' },
          { type: 'blob', modality: 'document', mime_type: 'application/pdf', content: 'JVBERi0xLjQ=' },
          { type: 'blob', modality: 'audio', mime_type: 'audio/mpeg', content: 'SUQz' },
        ],
      },
    ]);
  });

  it('records a spoken answer as its transcript and its audio', async () => {
    const spoken = {
      id: 'c',
      model: 'm',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: null, audio: { id: 'a1', data: 'SUQz', transcript: 'Hi there' } } }],
    };
    const attributes = await record({}, { model: 'm', messages: [{ role: 'user', content: 'Say hi' }] }, spoken);
    expect(json(attributes['gen_ai.output.messages'])).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'text', content: 'Hi there' },
          { type: 'blob', modality: 'audio', content: 'SUQz' },
        ],
        finish_reason: 'stop',
      },
    ]);
  });

  it("records a custom tool's input format as its format, since it is no JSON Schema", async () => {
    const grammar = { type: 'grammar', grammar: { syntax: 'regex', definition: '^[0-9]+$' } };
    const attributes = await record(
      {},
      {
        model: 'm',
        messages: [{ role: 'user', content: 'Count' }],
        tools: [
          { type: 'custom', custom: { name: 'count', description: 'Counts', format: grammar } },
          { type: 'function', function: { name: 'pay', parameters: { type: 'object' } } },
        ],
      } as ChatCompletionRequest,
    );
    expect(json(attributes['gen_ai.tool.definitions'])).toEqual([
      { type: 'custom', name: 'count', description: 'Counts', format: grammar },
      { type: 'function', name: 'pay', parameters: { type: 'object' } },
    ]);
  });
});

describe('request and response attributes, as semconv sets them', () => {
  it('sets the choice count only when it is not 1, stream only when streaming, and no empty stop list', async () => {
    const tracer = h.handle.tracerProvider.getTracer('content-test');
    const requests: ChatCompletionRequest[] = [
      { model: 'm', n: 1, stream: false, stop: [] },
      { model: 'm', n: 3, stop: 'END' },
    ];
    for (const request of requests) await traceChatCompletion(tracer, request, async () => COMPLETION);
    const [single, three] = await h.spans(2);
    for (const key of ['gen_ai.request.choice.count', 'gen_ai.request.stream', 'gen_ai.request.stop_sequences']) {
      expect(single!.attributes, key).not.toHaveProperty([key]);
    }
    expect(three!.attributes).toMatchObject({ 'gen_ai.request.choice.count': 3, 'gen_ai.request.stop_sequences': ['END'] });
  });

  it('leaves out a seed or token count that is not a whole number, and records the reasoning effort as the reasoning level', async () => {
    const attributes = await record({}, { model: 'm', seed: 1.5, max_completion_tokens: 2.5, reasoning_effort: 'low' } as ChatCompletionRequest);
    expect(attributes).not.toHaveProperty(['gen_ai.request.seed']);
    expect(attributes).not.toHaveProperty(['gen_ai.request.max_tokens']);
    expect(attributes['gen_ai.request.reasoning.level']).toBe('low');
  });

  it('gives one finish reason per choice, in order, with error for a choice that did not finish', async () => {
    const completion = {
      id: 'c',
      model: 'm',
      choices: [
        { index: 2, finish_reason: 'tool_calls', message: { role: 'assistant', content: 'b' } },
        { index: 1, finish_reason: null, message: { role: 'assistant', content: 'a' } },
        { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'x' } },
      ],
    };
    const attributes = await record({}, { model: 'm', n: 3 }, completion);
    expect(attributes['gen_ai.response.finish_reasons']).toEqual(['stop', 'error', 'tool_calls']);
  });

  it("records OpenAI's own attributes on spans of OpenAI's API only", async () => {
    const tracer = h.handle.tracerProvider.getTracer('content-test');
    const completion = { ...COMPLETION, service_tier: 'default', system_fingerprint: 'fp_1' };
    const request: ChatCompletionRequest = { model: 'm', service_tier: 'flex' };
    for (const serverUrl of ['https://api.openai.com/v1', 'https://api.groq.com/openai/v1']) {
      await traceChatCompletion(tracer, request, async () => completion, { serverUrl });
    }
    const [openai, groq] = await h.spans(2);
    expect(openai!.attributes).toMatchObject({
      'openai.api.type': 'chat_completions',
      'openai.request.service_tier': 'flex',
      'openai.response.service_tier': 'default',
      'openai.response.system_fingerprint': 'fp_1',
    });
    expect(Object.keys(groq!.attributes).filter((key) => key.startsWith('openai.'))).toEqual([]);
  });
});
